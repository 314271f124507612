package convert

import (
	"context"

	"github.com/papierkram/papierkram/engine/office"
)

// Office converts documents with LibreOffice (engine/office does): Word, Excel and HTML to
// PDF, DOCX, ODT, ODS. Operations take this interface, so their callers (the server, the
// command line) need not know the engine.
type Office interface {
	Convert(ctx context.Context, j office.Job, to string) ([]byte, error)
}
