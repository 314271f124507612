package pdf

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/papierkram/papierkram/internal/testpdf"
)

// BenchmarkToolboxVsQPDF times encrypt and stamp against qpdf doing the same on the same
// 50-page file in the same run (qpdf --encrypt AES-256; qpdf --overlay of a one-page PDF),
// and reports ours/qpdf as a ratio, so that the figure holds on a busy machine:
//
//	go test -run '^$' -bench BenchmarkToolboxVsQPDF -benchtime 20x ./pdf/
func BenchmarkToolboxVsQPDF(b *testing.B) {
	ctx := context.Background()
	doc := testpdf.New(50)
	dir := b.TempDir()
	in, stamp, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "stamp.pdf"), filepath.Join(dir, "out.pdf")
	if err := os.WriteFile(in, doc, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(stamp, testpdf.New(1), 0o600); err != nil {
		b.Fatal(err)
	}
	stampPDF, _ := os.ReadFile(stamp)
	cases := []struct {
		name string
		ours func() error
		qpdf []string
	}{
		{"encrypt", func() error {
			_, err := Encrypt(ctx, doc, EncryptOptions{UserPassword: "u", OwnerPassword: "o", Permissions: Permissions{Print: true}})
			return err
		}, []string{"--encrypt", "u", "o", "256", "--print=full", "--modify=none", "--", in, out}},
		{"stamp", func() error {
			_, err := Stamp(ctx, doc, StampOptions{Image: stampPDF})
			return err
		}, []string{in, "--overlay", stamp, "--repeat=1", "--", out}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var ours, theirs time.Duration
			for b.Loop() {
				t0 := time.Now()
				if err := c.ours(); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if o, err := exec.Command("qpdf", c.qpdf...).CombinedOutput(); err != nil {
					b.Fatalf("qpdf: %v %s", err, o)
				}
				ours, theirs = ours+t1.Sub(t0), theirs+time.Since(t1)
			}
			b.ReportMetric(float64(ours)/float64(theirs), "ours/qpdf")
		})
	}
}
