package store

// TOCWithout is tocWithout, for the tests of the restore's list.
var TOCWithout = tocWithout
