DROP TABLE host_stream_attempts;

--bun:split

DROP TABLE host_streams;
