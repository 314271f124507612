package server

import (
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
)

// TestProse: every operation of the API document has a description, every section of the
// prose files belongs to an operation, and no long description is written in route code.
func TestProse(t *testing.T) {
	e := newTestEnv(t)
	ids := map[string]bool{}
	for path, item := range e.srv.api.OpenAPI().Paths {
		for _, op := range []*huma.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if op == nil {
				continue
			}
			ids[op.OperationID] = true
			if strings.TrimSpace(op.Description) == "" {
				t.Errorf("%s %s (%s) has no description", op.Method, path, op.OperationID)
			}
		}
	}
	for id := range prose() {
		if !ids[id] {
			t.Errorf("prose section %q names no operation", id)
		}
	}
	if len(prose()) < 40 {
		t.Errorf("only %d prose sections", len(prose()))
	}
}
