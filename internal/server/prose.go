package server

import (
	"embed"
	"io/fs"
	"maps"
	"sync"

	"github.com/papierkram/papierkram/internal/ops"
)

// The routes' descriptions live beside the code in prose/<file>.md, one "## operationId"
// section each, so route code stays code and the prose can be read and edited as prose.
// A description written in the operation itself (short ones) wins.
//
//go:embed prose/*.md
var proseFiles embed.FS

// prose maps an operation id to its description.
var prose = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	files, _ := fs.Glob(proseFiles, "prose/*.md")
	for _, f := range files {
		b, _ := proseFiles.ReadFile(f)
		maps.Copy(m, ops.Sections(string(b)))
	}
	return m
}) // read when a server registers its routes, not by every CLI command
