// Command receiptcheck measures receipt extraction on scans whose truth is in their file
// names (merchant_DDMMYYYY[_items]_totalcents[_suffix].jpg or .png, the convention of
// softmatic/vision-data and ../shared/corpus/receipts). Each directory is a set of its own,
// so a tuning set and a held-out set are reported side by side.
//
// With -flatbed each scan is first placed on an A4 page at 300 dpi (internal/flatbed), as a
// receipt lying on a flatbed scanner comes out; background and placement follow from the
// file name, so runs are repeatable.
//
// Fields: total (the gross paid), date, issuer (the merchant's name in the issuer), VAT
// breakdown exact (every line's VAT is its gross at its rate to the cent, and the lines'
// gross adds up to the total), and "uncertain" (how many wrong totals the extraction
// flagged itself: a wrong value it was sure of is the worst outcome). Time is the pipeline's
// against a bare tesseract run on the same file, one file at a time.
//
//	go run ./bench/receiptcheck [-flatbed] [-paddle DIR] [-paddle-only] [-v] [-write DIR] [-dump DIR] DIR...
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/text/unicode/norm"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/paddle"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/flatbed"
	"github.com/papierkram/papierkram/receipt"
)

// name reads the truth from a file name.
var name = regexp.MustCompile(`^([a-z][a-z0-9]*)_(\d{2})(\d{2})(\d{4})(?:_\d+)?_(\d+)(?:_[A-Za-z]+)?\.(?:jpe?g|png)$`)

type truth struct {
	file, merchant, date string
	total                decimal.Decimal
}

type tally struct {
	files, total, date, issuer, vat, flagged, wrongTotals int
	ours, bare                                            time.Duration
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "receiptcheck:", err)
		os.Exit(1)
	}
}

// run measures; it returns on an error rather than exiting, so that its deferred clean-up
// (the temporary directory, PaddleOCR's process) runs.
func run() error {
	onFlatbed := flag.Bool("flatbed", false, "place each scan on an A4 page with a background first")
	verbose := flag.Bool("v", false, "print every wrong field")
	write := flag.String("write", "", "write the images read (after -flatbed) into this directory")
	paddleDir := flag.String("paddle", "engine/paddle/js", "PaddleOCR's directory, the second reading of receipts Tesseract leaves unconfirmed; empty for Tesseract alone")
	paddleOnly := flag.Bool("paddle-only", false, "read with PaddleOCR alone instead of Tesseract (to compare the engines)")
	dump := flag.String("dump", "", "write the text read from each file into this directory")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: receiptcheck [-flatbed] [-v] [-write DIR] [-dump DIR] DIR...")
		os.Exit(2)
	}
	ctx := context.Background()
	ts := tesseract.New(engine.Config{Concurrency: 1, JobTimeout: 2 * time.Minute})
	pop := poppler.New(engine.Config{Concurrency: 1, JobTimeout: 2 * time.Minute})
	ex := &receipt.Extractor{OCR: ts, PDF: pop, Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	if *paddleDir != "" {
		if err := paddle.Installed(*paddleDir); err != nil {
			return fmt.Errorf("PaddleOCR in %s: %w (-paddle '' reads with Tesseract alone)", *paddleDir, err)
		}
		pd := paddle.New(engine.Config{Concurrency: 1, JobTimeout: 2 * time.Minute}, *paddleDir)
		defer pd.Stop(context.Background()) // its warm process
		// Started before the first file is timed, as a server started with --warm paddleocr
		// has it: loading the models (about a second) is no receipt's time.
		if err := pd.Supervisor().Warm(ctx); err != nil {
			return fmt.Errorf("starting PaddleOCR: %w", err)
		}
		ex.Second = pd
		if *paddleOnly {
			ex.OCR, ex.Second = paddleOCR{pd}, nil
		}
	}
	tmp, err := os.MkdirTemp("", "receiptcheck-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var sets []string
	tallies := map[string]*tally{}
	for _, dir := range flag.Args() {
		files, _ := filepath.Glob(filepath.Join(dir, "*.*"))
		t := &tally{}
		sets = append(sets, dir)
		tallies[dir] = t
		for _, f := range files {
			tr, ok := parseName(f)
			if !ok {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if *onFlatbed {
				if data, _, err = flatbed.Place(data, filepath.Base(f)); err != nil {
					return fmt.Errorf("%s: %w", f, err)
				}
			}
			if *write != "" {
				if err := os.WriteFile(filepath.Join(*write, filepath.Base(f)), data, 0o644); err != nil {
					return err
				}
			}
			// The baseline: what reading the same file with tesseract alone costs.
			in := filepath.Join(tmp, "in.jpg")
			if err := os.WriteFile(in, data, 0o600); err != nil {
				return err
			}
			start := time.Now()
			cmd := exec.Command("tesseract", in, "-", "-l", "deu+eng", "--psm", "6")
			cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("tesseract %s: %w", f, err)
			}
			t.bare += time.Since(start)
			start = time.Now()
			r, err := ex.Extract(ctx, data, filepath.Base(f))
			t.ours += time.Since(start)
			t.files++
			if err != nil {
				fmt.Printf("%s: %v\n", filepath.Base(f), err)
				continue
			}
			if *dump != "" {
				if err := os.WriteFile(filepath.Join(*dump, filepath.Base(f)+".txt"), []byte(r.Text), 0o644); err != nil {
					return err
				}
			}
			score(t, tr, r, *verbose)
		}
	}
	mode := "the scans as they are"
	if *onFlatbed {
		mode = "each scan on an A4 flatbed page"
	}
	switch {
	case *paddleOnly:
		mode += "; PaddleOCR alone"
	case ex.Second != nil:
		mode += "; PaddleOCR reads again what Tesseract leaves unconfirmed"
	default:
		mode += "; Tesseract alone"
	}
	fmt.Printf("receipts: %s\n", mode)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "set\tfiles\ttotal\tdate\tissuer\tVAT breakdown exact\twrong totals flagged\ttime / bare tesseract\t\n")
	for _, s := range sets {
		t := tallies[s]
		if t.files == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d of %d\t%.2f\t\n", filepath.Base(s), t.files,
			pct(t.total, t.files), pct(t.date, t.files), pct(t.issuer, t.files), pct(t.vat, t.files),
			t.flagged, t.wrongTotals, t.ours.Seconds()/t.bare.Seconds())
	}
	return tw.Flush()
}

// paddleOCR reads with PaddleOCR where the pipeline asks Tesseract: for -paddle-only. It
// cannot tell orientation, and reports no word confidence.
type paddleOCR struct{ p *paddle.Paddle }

func (o paddleOCR) Read(ctx context.Context, img []byte, _ tesseract.Options) (*tesseract.Page, error) {
	text, err := o.p.Read(ctx, img)
	if err != nil {
		return nil, err
	}
	return &tesseract.Page{Text: text, Confidence: 100, Words: len(strings.Fields(text))}, nil
}

func (paddleOCR) Orientation(context.Context, []byte) (int, float64, error) { return 0, 0, nil }

func score(t *tally, tr truth, r *receipt.Result, verbose bool) {
	okT := r.Data.Gross.Valid() && r.Data.Gross.Value().Equal(tr.total)
	okD := string(r.Data.Date) == tr.date
	okI := strings.Contains(key(r.Data.Issuer), key(tr.merchant)) || tr.merchant == "tanke" && r.Data.Type == receipt.Fuel && r.Data.Issuer != ""
	okV := vatExact(r.VAT, tr.total)
	for _, ok := range []struct {
		ok bool
		n  *int
	}{{okT, &t.total}, {okD, &t.date}, {okI, &t.issuer}, {okV, &t.vat}} {
		if ok.ok {
			*ok.n++
		}
	}
	if !okT {
		t.wrongTotals++
		if slices.ContainsFunc(r.Uncertain, func(u einvoice.Reading) bool { return u.Path == "data.gross" }) || !r.Data.Gross.Valid() {
			t.flagged++
		}
	}
	if verbose && (!okT || !okD || !okI || !okV) {
		var vat []string
		for _, l := range r.VAT {
			vat = append(vat, fmt.Sprintf("%s%%:%s/%s/%s", l.Rate, l.Net, l.VAT, l.Gross))
		}
		var unsure []string
		for _, u := range r.Uncertain {
			unsure = append(unsure, u.Path)
		}
		fmt.Printf("%s: total %s (want %s) date %s (want %s) issuer %q vat %v uncertain %v (%s)\n", filepath.Base(tr.file),
			r.Data.Gross, tr.total.StringFixed(2), r.Data.Date, tr.date, r.Data.Issuer, vat, unsure, r.OCREngine)
	}
}

// vatExact: the breakdown is complete and right to the cent. The truth gives only the total,
// so right means what the arithmetic allows: each line's VAT is its gross at its rate
// (rounded to the cent, one cent of play for the till's rounding), net + VAT = gross, and the
// lines' gross adds up to the receipt's total.
func vatExact(lines []receipt.VATLine, total decimal.Decimal) bool {
	if len(lines) == 0 {
		return false
	}
	cent := decimal.New(1, -2)
	sum := decimal.Zero
	for _, l := range lines {
		if !l.Rate.Valid() || !l.VAT.Valid() {
			return false
		}
		gross := l.Gross.Value()
		if !l.Gross.Valid() {
			if !l.Net.Valid() {
				return false
			}
			gross = l.Net.Value().Add(l.VAT.Value())
		}
		if l.Net.Valid() && !l.Net.Value().Add(l.VAT.Value()).Equal(gross) {
			return false
		}
		rate := l.Rate.Value()
		want := gross.Mul(rate).Div(rate.Add(decimal.NewFromInt(100))).Round(2)
		if want.Sub(l.VAT.Value()).Abs().GreaterThan(cent) {
			return false
		}
		sum = sum.Add(gross)
	}
	return sum.Equal(total)
}

func parseName(f string) (truth, bool) {
	m := name.FindStringSubmatch(filepath.Base(f))
	if m == nil {
		return truth{}, false
	}
	cents, _ := decimal.NewFromString(m[5])
	return truth{file: f, merchant: m[1], date: m[4] + "-" + m[3] + "-" + m[2], total: cents.Shift(-2)}, true
}

// key is a name's letters and digits without their accents, as the file names spell them
// ("Müller" is "muller", "REMA 1000" "rema1000", "Łódź" "lodz": letters NFD leaves whole
// are spelled as their base letters).
func key(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(baseLetters.Replace(strings.ToLower(s))) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var baseLetters = strings.NewReplacer("ł", "l", "ø", "o", "đ", "d", "ß", "ss", "æ", "ae", "œ", "oe")

func pct(n, of int) string { return fmt.Sprintf("%d (%.0f %%)", n, 100*float64(n)/float64(of)) }
