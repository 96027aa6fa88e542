package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// EnvPrefix prefixes the environment variables whsim reads: WHSIM_SEED,
// WHSIM_SEND_URL.
const EnvPrefix = "WHSIM"

// ConfigName is the config file whsim looks for in the working directory and
// in the user config directory (…/whsim/whsim.yaml).
const ConfigName = "whsim.yaml"

// configFile finds the config file: the explicit one (which must exist), else
// whsim.yaml in the working directory, else in the user config directory.
// It returns "" when there is none.
func configFile(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", usagef("config file: %w", err)
		}
		return explicit, nil
	}
	candidates := []string{ConfigName}
	if dir, err := os.UserConfigDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "whsim", ConfigName))
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", usagef("config file: %w", err)
		}
	}
	return "", nil
}

// loadConfig copies values from the environment and the config file into
// the flags of cmd the user did not set, once, so that the commands read
// typed flag values only. Precedence: flag > WHSIM_* > config file > default.
//
// A flag is looked up by its command path first and then bare: for
// `whsim send --url`, the key send.url (WHSIM_SEND_URL) then url (WHSIM_URL).
func loadConfig(cmd *cobra.Command, explicit string) error {
	v := viper.New()
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))
	v.AutomaticEnv()

	file, err := configFile(explicit)
	if err != nil {
		return err
	}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return usagef("config file %s: %w", file, err)
		}
	}

	section := strings.ReplaceAll(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), " ", ".")
	var errs []error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "config" || f.Name == "help" || f.Name == "version" {
			return
		}
		for _, key := range []string{section + "." + f.Name, f.Name} {
			if !v.IsSet(key) {
				continue
			}
			if err := setFlag(f, v.Get(key)); err != nil {
				src := "config file " + file
				if os.Getenv(envName(key)) != "" {
					src = "environment " + envName(key)
				}
				errs = append(errs, fmt.Errorf("%s: %s: %w", src, key, err))
			}
			return
		}
	})
	return usageErr(errors.Join(errs...))
}

func envName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

// setFlag sets a flag from a config or environment value. Lists (YAML
// sequences, or comma-separated text for string-slice flags such as --event)
// set each element.
func setFlag(f *pflag.Flag, val any) error {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		var items []string
		switch val := val.(type) {
		case []any:
			for _, x := range val {
				items = append(items, fmt.Sprint(x))
			}
		case []string:
			items = val
		default:
			// A --set value may hold commas itself; only plain lists split.
			items = []string{fmt.Sprint(val)}
			if f.Value.Type() == "stringSlice" {
				items = strings.Split(items[0], ",")
			}
		}
		return sv.Replace(items)
	}
	if _, ok := val.([]any); ok {
		return fmt.Errorf("want one value, got a list")
	}
	return f.Value.Set(fmt.Sprint(val))
}
