// Command papierkram is the Papierkram service and its command line: `papierkram serve`
// runs the HTTP API; the other subcommands work on local files or the local store.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/startup"
)

func main() {
	startup.Done()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	root := &cobra.Command{
		Use:           "papierkram",
		Short:         "Document conversion, PDF tools, e-invoices, signatures and receipts in one binary",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCmd(), versionCmd(), keysCmd(), pdfCmd(), signCmd(), verifyCmd(), xrechnungCmd(), zugferdCmd(), convertCmd(), spreadsheetCmd(), receiptCmd())
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "papierkram:", err)
		os.Exit(exitCode(err))
	}
}

// exitCode: 2 when the input is at fault (bad file, bad option), 1 for everything else.
func exitCode(err error) int {
	if fault.Lookup(fault.CodeOf(err)).Kind == fault.ClientFault {
		return 2
	}
	return 1
}
