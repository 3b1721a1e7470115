ALTER TABLE payments DROP COLUMN tlv_records;
ALTER TABLE payments DROP COLUMN destination;
