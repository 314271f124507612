package engine

import "context"

// Engine is one external program as the process that runs the service sees it: a name
// (for /ready, /metrics and --concurrency), its supervisor (metrics, warming), readiness
// and shutdown. Each engine package's type implements it; cmd/papierkram keeps one list of
// them and derives everything else from that list.
type Engine interface {
	Name() string
	Supervisor() *Supervisor
	Ready(ctx context.Context) error
	Stop(ctx context.Context) error
}
