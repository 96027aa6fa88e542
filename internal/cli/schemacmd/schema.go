// Package schemacmd is whsim schema: the JSON Schema, OpenAPI and AsyncAPI
// documents of the webhook calls.
package schemacmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/schema"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
	"github.com/whsim/whsim/internal/validate"
)

type schemaOptions struct {
	Event  string
	Shape  string
	Format string
}

// The documents whsim schema writes.
const (
	formatJSONSchema = "jsonschema"
	formatOpenAPI    = "openapi"
	formatAsyncAPI   = "asyncapi"
)

// New is whsim schema.
func New(a *cmdutil.App) *cobra.Command {
	opts := &schemaOptions{}
	cmd := &cobra.Command{
		Use:   "schema [--format jsonschema|openapi|asyncapi] [--event <name>] [--shape auto|described|sample]",
		Short: "Print the JSON Schema, OpenAPI or AsyncAPI document of the webhook calls",
		Long: `Print JSON Schema (draft 2020-12) derived from the spec model, for use in your
own tests and code generators. With --event and --shape described or
sample, the schema of that one body; otherwise (--shape auto, the default,
as validate's) one document with a schema per event and shape under $defs,
and per event one ($defs/<EVENT>) that holds a body to the shape validate
reads it as (an invoice by its markers and status, else by its number:
4000 the sample shape); the document accepts a body any event's accepts.

The schemas hold what whsim validate calls errors. Its warnings (missing or
unknown fields, nulls inside data, tax-id check characters, the arithmetic)
are not expressible without making them errors, so they are left out: null is
allowed inside data and no data field but a receipt's three members is
required.

The string formats' patterns (UUIDs, currency codes, two-decimal strings)
are ECMA-262, as JSON Schema says, anchored with ^ and $. Python's
jsonschema and Java's validators let $ match before a final line break,
so each pattern comes with an exact minLength and maxLength, or a "not"
of the characters the format cannot hold: "CNY\n" is refused everywhere,
as validate refuses it.

To check a body with Ajv (Node.js; the schemas are draft 2020-12 and use
format "uuid", hence --spec and ajv-formats):

  whsim schema > whsim.schema.json
  whsim generate --event CREATE_RECEIVABLE_DOC --seed 1 > receipt.json
  npx --yes -p ajv-cli@5 -p ajv-formats@3 ajv validate --spec=draft2020 -c ajv-formats -s whsim.schema.json -d receipt.json

--format openapi prints an OpenAPI 3.1 document with a webhook per event
(POST, the businessType query parameter, application/json, the body schema
in both shapes with the fixtures as named examples, the answers whsim check
expects, which the spec does not show, the Standard Webhooks headers as
optional security), for API
portals and tools that import webhooks (Redocly, Scalar, Svix). --format
asyncapi prints the same four calls as an AsyncAPI 3.0 document: a channel
and a send operation per event over HTTP (Microcks, the AsyncAPI generator).
Both hold every shape: --shape does not apply.`,
		Example: `  whsim schema > whsim.schema.json
  whsim schema --format openapi > openapi.json
  whsim schema --format asyncapi --event CREATE_RECEIVABLE_DOC > asyncapi.json
  whsim schema --event CREATE_RECEIVABLE_DOC --shape sample
  whsim schema --event AUDIT_PURCHASE_ORDER_INVOICE --shape described > invoice.schema.json`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			return runSchema(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Event, "event", "e", spec.AllEvents, "event name, or "+spec.AllEvents)
	f.StringVar(&opts.Shape, "shape", validate.ShapeAuto, "body shape: "+strings.Join(validate.ShapeNames(), "|")+" ("+validate.ShapeAuto+": either, as validate --shape "+validate.ShapeAuto+" takes a body)")
	f.StringVar(&opts.Format, "format", formatJSONSchema, "document: "+strings.Join(schemaFormats(), "|"))
	_ = cmd.RegisterFlagCompletionFunc("format", cmdutil.CompleteWords(schemaFormats()...))
	_ = cmd.RegisterFlagCompletionFunc("event", cmdutil.CompleteEvents)
	_ = cmd.RegisterFlagCompletionFunc("shape", cmdutil.CompleteWords(validate.ShapeNames()...))
	return cmd
}

func runSchema(_ context.Context, a *cmdutil.App, opts *schemaOptions) error {
	// auto, validate's default, is either shape: what no --shape gave.
	if opts.Shape == validate.ShapeAuto {
		opts.Shape = ""
	}
	events, err := spec.ParseEvents([]string{opts.Event})
	if err != nil {
		return cmdutil.Usagef("--event: %w", err)
	}
	var b []byte
	switch opts.Format {
	case formatJSONSchema:
		shapes := spec.Shapes()
		if opts.Shape != "" {
			s, err := spec.ParseShape(opts.Shape)
			if err != nil {
				// The names schema takes are validate's, auto among them, so
				// the did-you-mean is drawn from those too.
				if hint := suggest.Hint(opts.Shape, validate.ShapeNames()); hint != "" {
					return cmdutil.Usagef("--shape: unknown shape %q%s", opts.Shape, hint)
				}
				return cmdutil.Usagef("--shape: unknown shape %q (valid: %s)", opts.Shape, strings.Join(validate.ShapeNames(), ", "))
			}
			shapes = []spec.Shape{s}
		}
		doc := schema.Bundle(events, shapes)
		if len(events) == 1 && len(shapes) == 1 {
			doc = schema.For(events[0], shapes[0])
		}
		b, err = schema.Marshal(doc)
	case formatOpenAPI, formatAsyncAPI:
		if opts.Shape != "" {
			return cmdutil.Usagef("--shape %s: --format %s holds every shape (leave --shape out, or give %s)", opts.Shape, opts.Format, validate.ShapeAuto)
		}
		b, err = apiDoc(opts.Format, events)
	default:
		return cmdutil.Usagef("--format %q: want %s%s", opts.Format, strings.Join(schemaFormats(), ", "), suggest.Hint(opts.Format, schemaFormats()))
	}
	if err != nil {
		return err
	}
	_, err = a.Streams.Out.Write(b)
	return err
}

func schemaFormats() []string { return []string{formatJSONSchema, formatOpenAPI, formatAsyncAPI} }

// apiDoc is the OpenAPI or AsyncAPI document of events.
func apiDoc(format string, events []spec.Event) ([]byte, error) {
	build := schema.OpenAPI
	if format == formatAsyncAPI {
		build = schema.AsyncAPI
	}
	doc, err := build(events)
	if err != nil {
		return nil, err
	}
	return schema.Marshal(doc)
}
