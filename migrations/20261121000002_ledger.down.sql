DROP TABLE payments;

--bun:split

DROP TABLE invoices;
