module hearth.test/plugins

go 1.24

require github.com/hearthwallet/hearth/sdk v0.0.0

replace github.com/hearthwallet/hearth/sdk => ../../../sdk
