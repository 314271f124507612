package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/signature"
)

// certPassword comes from PAPIERKRAM_CERT_PASSWORD or the first line of standard input,
// never from a flag, which other users could read in the process list.
func certPassword(cmd *cobra.Command) string {
	if pw, ok := os.LookupEnv("PAPIERKRAM_CERT_PASSWORD"); ok {
		return pw
	}
	line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	return strings.TrimRight(line, "\r\n")
}

func signCmd() *cobra.Command {
	var cert, out, reason, location, contact, name, tsa, allow string
	cmd := &cobra.Command{
		Use:   "sign FILE",
		Short: "Sign a PDF with a PKCS#12 certificate (password from PAPIERKRAM_CERT_PASSWORD or stdin)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return fault.Wrap(fault.InvalidInput, err, "%v", err)
			}
			p12, err := os.ReadFile(cert)
			if err != nil {
				return fault.Wrap(fault.InvalidInput, err, "%v", err)
			}
			c, err := signature.Load(p12, certPassword(cmd))
			if err != nil {
				return err
			}
			prefixes, err := netguard.ParseAllow(allow)
			if err != nil {
				return err
			}
			signed, err := signature.Sign(cmd.Context(), data, c, signature.Options{Reason: reason, Location: location, ContactInfo: contact,
				SignerName: name, TimestampURL: tsa, Network: netguard.Policy{Allow: prefixes}})
			if err != nil {
				return err
			}
			return writeOut(cmd, out, signed)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cert, "cert", "", "PKCS#12 file (.p12, .pfx)")
	outFlag(cmd, &out)
	f.StringVar(&reason, "reason", "", "reason for signing")
	f.StringVar(&location, "location", "", "where it was signed")
	f.StringVar(&contact, "contact-info", "", "how to reach the signer")
	f.StringVar(&name, "signer-name", "", "signer name (default: the certificate's common name)")
	f.StringVar(&tsa, "timestamp-url", "", "RFC 3161 timestamp authority")
	f.StringVar(&allow, "allow-network", "", "internal addresses or CIDR ranges the TSA may be at")
	cmd.MarkFlagRequired("cert")
	return cmd
}

func verifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify FILE",
		Short: "Verify a PDF's signatures; prints the report as JSON; exit 0 only when all are valid",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return fault.Wrap(fault.InvalidInput, err, "%v", err)
			}
			rep, err := signature.Verify(data)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				return err
			}
			if !rep.Valid {
				return errors.New("not validly signed")
			}
			return nil
		},
	}
}
