package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/schema"
	"github.com/whsim/whsim/internal/spec"
)

type schemaOptions struct {
	Event string
	Shape string
}

func newSchemaCmd(a *app) *cobra.Command {
	opts := &schemaOptions{}
	cmd := &cobra.Command{
		Use:   "schema [--event <name>] [--shape described|sample]",
		Short: "Print the JSON Schema (draft 2020-12) of the webhook bodies",
		Long: `Print JSON Schema (draft 2020-12) derived from the spec model, for use in your
own tests and code generators. With --event and --shape, the schema of that
one body; otherwise one document with a schema per event and shape under
$defs that accepts a body any of them accepts.

The schemas hold what whsim validate calls errors. Its warnings (missing or
unknown fields, nulls inside data, tax-id check characters, the arithmetic)
are not expressible without making them errors, so they are left out: null is
allowed inside data and no data field but a receipt's three members is
required.

To check a body with Ajv (Node.js; the schemas are draft 2020-12 and use
format "uuid", hence --spec and ajv-formats):

  whsim schema > whsim.schema.json
  whsim generate --event CREATE_RECEIVABLE_DOC --seed 1 > receipt.json
  npx --yes -p ajv-cli@5 -p ajv-formats@3 ajv validate --spec=draft2020 -c ajv-formats -s whsim.schema.json -d receipt.json`,
		Example: `  whsim schema > whsim.schema.json
  whsim schema --event CREATE_RECEIVABLE_DOC --shape sample
  whsim schema --event AUDIT_PURCHASE_ORDER_INVOICE --shape described > invoice.schema.json`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return runSchema(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Event, "event", "e", spec.AllEvents, "event name, or "+spec.AllEvents)
	f.StringVar(&opts.Shape, "shape", "", "body shape: "+strings.Join(spec.ShapeNames(), "|")+" (default: both)")
	_ = cmd.RegisterFlagCompletionFunc("event", completeEvents)
	_ = cmd.RegisterFlagCompletionFunc("shape", completeShapes)
	return cmd
}

func runSchema(_ context.Context, a *app, opts *schemaOptions) error {
	events, err := spec.ParseEvents([]string{opts.Event})
	if err != nil {
		return usagef("--event: %v", err)
	}
	shapes := spec.Shapes()
	if opts.Shape != "" {
		s, err := spec.ParseShape(opts.Shape)
		if err != nil {
			return usagef("--shape: %v", err)
		}
		shapes = []spec.Shape{s}
	}
	doc := schema.Bundle(events, shapes)
	if len(events) == 1 && len(shapes) == 1 {
		doc = schema.For(events[0], shapes[0])
	}
	b, err := schema.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = a.streams.Out.Write(b)
	return err
}
