package main

import (
	"context"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestOfficeFixtures: the benchmark measures what its scenario names say.
func TestOfficeFixtures(t *testing.T) {
	o, err := office.New(engine.Config{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close(context.Background())
	pdf, err := o.ToPDF(context.Background(), office.Job{Document: wordDoc(), Ext: "docx"})
	if err != nil {
		t.Fatal(err)
	}
	if p := testtool.Info(t, pdf)["Pages"]; p != "2" {
		t.Errorf("word fixture has %s pages, want 2", p)
	}
	if imgs := testtool.Run(t, "pdfimages", "-list", testtool.File(t, "w.pdf", pdf)); strings.Count(imgs, "\n") < 3 {
		t.Error("word fixture has no image")
	}
	pdf, err = o.ToPDF(context.Background(), office.Job{Document: workbook(), Ext: "xlsx"})
	if err != nil {
		t.Fatal(err)
	}
	text := testtool.Text(t, pdf)
	if !strings.Contains(text, "Monat 40") || strings.Count(text, "Anteil") != 3 {
		t.Errorf("workbook fixture does not print its three sheets:\n%.500s", text)
	}
}
