// Package engine runs every external program Papierkram uses (Chromium, LibreOffice,
// Ghostscript, poppler, qpdf, Tesseract, Pygments) under one supervisor shape.
//
// A Supervisor bounds concurrency and the queue in front of it, gives each job a temporary
// directory that is always removed, enforces a per-job timeout by killing the job's whole
// process group, and keeps long-running programs (a browser, an office suite) warm in a
// pool: started lazily or eagerly, health-checked, restarted after MaxJobs jobs (the first
// processes at staggered counts), after a crash or after a job that hung, with an optional
// warm spare that replaces a retired process at once. A job that ignores its expired
// context has its process stopped under it. No other package starts processes.
package engine
