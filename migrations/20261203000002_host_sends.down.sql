DROP TABLE host_sends;
