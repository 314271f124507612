package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/store"
)

func keysCmd() *cobra.Command {
	var dataDir, databaseURL string
	cmd := &cobra.Command{Use: "keys", Short: "Manage API keys in the store the server uses"}
	cmd.PersistentFlags().StringVar(&dataDir, "data-dir", env("PAPIERKRAM_DATA_DIR", "./data"), "directory of the embedded store")
	cmd.PersistentFlags().StringVar(&databaseURL, "database-url", env("PAPIERKRAM_DATABASE_URL", ""), "postgres://… when the server keeps its store in PostgreSQL")
	open := func(cmd *cobra.Command) (store.Store, error) { return store.Open(cmd.Context(), databaseURL, dataDir) }

	var name, plan string
	var monthly int
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a key and print its secret (shown once)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := open(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			secret := store.NewSecret()
			k := &store.Key{Name: name, Hash: store.Hash(secret), Plan: store.Plan(plan), Limit: monthly}
			if err := st.CreateKey(cmd.Context(), k); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "created %s (%s, plan %s); the secret is shown only now:\n", k.ID, k.Name, k.Plan)
			fmt.Fprintln(cmd.OutOrStdout(), secret)
			return nil
		},
	}
	create.Flags().StringVar(&name, "name", "default", "a label for the key")
	create.Flags().StringVar(&plan, "plan", "free", "free, unlimited or admin")
	create.Flags().IntVar(&monthly, "monthly-conversions", 0, "monthly conversion allowance (0 = plan default, -1 = unlimited)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List keys (never their secrets)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := open(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			keys, err := st.Keys(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPLAN\tMONTHLY\tCREATED\tREVOKED")
			for _, k := range keys {
				revoked := "-"
				if k.RevokedAt != nil {
					revoked = k.RevokedAt.Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", k.ID, k.Name, k.Plan, k.MonthlyConversions(), k.CreatedAt.Format(time.RFC3339), revoked)
			}
			return tw.Flush()
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := open(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.RevokeKey(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "revoked %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}
