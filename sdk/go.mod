module github.com/hearthwallet/hearth/sdk

go 1.24
