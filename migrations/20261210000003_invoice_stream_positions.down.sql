DROP TABLE invoice_stream_positions;
