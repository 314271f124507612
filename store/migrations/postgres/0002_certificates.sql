-- 2: PKCS#12 files per key. The file is stored as uploaded: its private key stays
-- encrypted under the certificate password, which is never stored. The data lives in the
-- database because instances share nothing else.
CREATE TABLE certificates (
	key_id      text COLLATE "C" NOT NULL,
	name        text COLLATE "C" NOT NULL,
	data        bytea NOT NULL,
	subject     text NOT NULL DEFAULT '',
	issuer      text NOT NULL DEFAULT '',
	not_before  timestamptz,
	not_after   timestamptz,
	sha256      text NOT NULL,
	uploaded_at timestamptz NOT NULL,
	PRIMARY KEY (key_id, name)
);
