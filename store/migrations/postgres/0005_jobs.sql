-- 5: asynchronous jobs when several instances share the database (jobs.River): the inputs and
-- results live here, River's own tables (migrated by River) carry only job ids.
CREATE TABLE papierkram_jobs (
	id		   text PRIMARY KEY,
	owner		text NOT NULL,
	kind		 text NOT NULL,
	filename	 text NOT NULL,
	status	   text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
	input		bytea NOT NULL,
	params	   jsonb NOT NULL,
	result	   bytea,
	content_type text NOT NULL DEFAULT '',
	summary	  jsonb,
	error		text NOT NULL DEFAULT '',
	duration_ms  bigint NOT NULL DEFAULT 0,
	created_at   timestamptz NOT NULL,
	started_at   timestamptz,
	expires_at   timestamptz NOT NULL,
	-- The webhook, removed with the job (the secret is needed to sign its retries).
	hook_url	 text NOT NULL DEFAULT '',
	hook_secret  text NOT NULL DEFAULT '',
	hook_event   text NOT NULL DEFAULT ''
);
CREATE INDEX papierkram_jobs_expires ON papierkram_jobs (expires_at);
