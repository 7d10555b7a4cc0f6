package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"aead.dev/minisign"
	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/plugins/pkg"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// PluginOptions are the arguments and flags of `toolhost plugin …`.
type PluginOptions struct {
	Action string // add, update, list, remove, verify, pack, push, sign, keygen
	Args   []string
	Yes    bool
	JSON   bool
	Repair bool   // verify: restore what does not match
	Output string // pack: archive path
	Key    string // sign, push, keygen: minisign secret key file
	// PasswordEnv names the environment variable holding the key's
	// password (--password-env); default pkg.PasswordEnv.
	PasswordEnv string
	// Unencrypted makes keygen write the secret key without a password.
	Unencrypted bool
}

// NewCmdPlugin manages plugin packages: `toolhost plugin add|update|list|
// remove|verify|pack|push|sign|keygen`.
func NewCmdPlugin(g *Globals, runF func(context.Context, *Globals, *PluginOptions) error) *cobra.Command {
	opts := &PluginOptions{}
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Add, update, verify, pack, sign and publish wasm plugins",
		Long: `Plugins are wasm modules with a toolhost-plugin.json manifest, shared as
packages: oci://registry/repo:tag, https://…/plugin.tar.gz, or a local
directory or archive. Adding one downloads it into the cache, shows the
capabilities it asks for, and — once you agree, or with --yes — lists it in
the project's toolhost.json and pins its digest and the capabilities granted
in toolhost.lock. Hosts then load only what the lock names, from the cache,
offline. See docs/plugins.md.`,
		Example: `  toolhost plugin add oci://ghcr.io/acme/jira:1.2.0
  toolhost plugin add ./vendor/jira --yes
  toolhost plugin list
  toolhost plugin update jira
  toolhost plugin pack ./jira -o jira-1.2.0.tar.gz
  toolhost plugin keygen --key ~/.minisign/toolhost.key     # asks a password; --unencrypted for none
  TOOLHOST_KEY_PASSWORD=… toolhost plugin sign jira-1.2.0.tar.gz --key ~/.minisign/toolhost.key
  toolhost plugin push ./jira oci://ghcr.io/acme/jira:1.2.0 --key ~/.minisign/toolhost.key`,
	}
	sub := func(use, short string, args cobra.PositionalArgs) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: args}
		action := strings.Fields(use)[0]
		c.RunE = func(c *cobra.Command, args []string) error {
			opts.Action, opts.Args = action, args
			if runF != nil {
				return runF(c.Context(), g, opts)
			}
			return runPlugin(c.Context(), g, opts)
		}
		cmd.AddCommand(c)
		return c
	}
	add := sub("add [ref]", "Add a plugin (no ref: fetch every locked plugin into the cache)", cobra.MaximumNArgs(1))
	update := sub("update [name...]", "Re-resolve tags and move the lock to new versions", cobra.ArbitraryArgs)
	list := sub("list", "List locked plugins: name, version, digest, tools, capabilities, source", cobra.NoArgs)
	sub("remove <name>", "Remove a plugin from the config and the lock", cobra.ExactArgs(1))
	verify := sub("verify", "Re-hash the cache against toolhost.lock and report what changed (--repair restores it)", cobra.NoArgs)
	packCmd := sub("pack <dir>", "Build a reproducible .tar.gz of a plugin directory", cobra.ExactArgs(1))
	push := sub("push <dir|archive> <oci://registry/repo:tag>", "Publish a plugin as an OCI artifact", cobra.ExactArgs(2))
	sign := sub("sign <archive|oci://…>", "Sign an archive (writes <archive>.minisig) or a published artifact", cobra.ExactArgs(1))
	keygen := sub("keygen", "Make a minisign key pair (<key>, encrypted, and <key>.pub) and print the public key for trust.keys", cobra.NoArgs)
	for _, c := range []*cobra.Command{add, update} {
		c.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "agree to the capabilities asked for without asking")
	}
	list.Flags().BoolVar(&opts.JSON, "json", false, "print the lock entries as JSON")
	verify.Flags().BoolVar(&opts.Repair, "repair", false, "restore what does not match: unpacked modules from the verified archive, blobs and signatures fetched again at the locked digest")
	packCmd.Flags().StringVarP(&opts.Output, "output", "o", "", "archive `file` (default <name>-<version>.tar.gz)")
	for _, c := range []*cobra.Command{push, sign, keygen} {
		c.Flags().StringVar(&opts.Key, "key", "", "minisign secret key `file`")
		c.Flags().StringVar(&opts.PasswordEnv, "password-env", "", "environment `variable` holding the key's password (default "+pkg.PasswordEnv+"; else you are asked at the terminal)")
	}
	keygen.Flags().BoolVar(&opts.Unencrypted, "unencrypted", false, "write the secret key without a password (anyone who can read the file can sign as you)")
	sign.MarkFlagRequired("key")
	keygen.MarkFlagRequired("key")
	return cmd
}

// pluginEnv is what the plugin commands work on.
type pluginEnv struct {
	mgr        *pkg.Manager
	worktree   string
	configFile string
	cacheDir   string
	config     *config.Config
}

func loadPluginEnv(g *Globals, opts *PluginOptions) (*pluginEnv, error) {
	dir := g.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, _ = filepath.Abs(dir)
	worktree := config.FindWorktree(dir)
	// An untrusted project's signing keys and settings do not count.
	loaded, _, err := g.loadConfig(dir, os.Getenv)
	if err != nil {
		return nil, err
	}
	cacheDir := runtime.DefaultCacheDir(os.Getenv)
	mgr := pkg.NewManager(loaded.Config, worktree, cacheDir, nil)
	// add (re-fetching locked plugins) warns when it finds a cached module
	// changed and restores it.
	mgr.Logger = g.logger()
	env := &pluginEnv{mgr: mgr, worktree: worktree, cacheDir: cacheDir, config: loaded.Config, configFile: filepath.Join(worktree, config.FileNames[0])}
	for _, n := range config.FileNames {
		if _, err := os.Stat(filepath.Join(worktree, n)); err == nil {
			env.configFile = filepath.Join(worktree, n)
		}
	}
	mgr.Inspect = func(ctx context.Context, src wasm.Bundle) ([]string, []string, error) {
		wh := wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(cacheDir, "wasm"), Logger: g.logger()})
		defer wh.Close(context.WithoutCancel(ctx))
		p, err := wh.LoadPlugin(ctx, src)
		if err != nil {
			return nil, nil, err
		}
		var tools, hooks []string
		for _, t := range p.Tools {
			tools = append(tools, t.ID())
		}
		if p.Hooks != nil {
			hooks = p.Hooks.Exports()
		}
		return tools, hooks, nil
	}
	if g.Streams.TTY != nil && !opts.Yes {
		tty := g.Streams.terminal()
		mgr.Consent = func(ctx context.Context, req pkg.ConsentRequest) (bool, error) {
			return askConsent(ctx, tty, req)
		}
	}
	return env, nil
}

// reportConfig prints what the plugin's config still lacks. The plugin is
// added (or updated) either way; until its config passes, hosts skip it
// and say why.
func (env *pluginEnv) reportConfig(out io.Writer, e pkg.Locked) {
	src, err := env.mgr.Open(e)
	if err != nil {
		return
	}
	if err := src.Manifest.CheckConfig(env.config); err != nil {
		fmt.Fprintf(out, "%v\n", err)
	}
}

func askConsent(ctx context.Context, tty *terminal, req pkg.ConsentRequest) (bool, error) {
	fmt.Fprint(tty, req.Describe())
	fmt.Fprint(tty, "Allow? [y/N] ")
	line, err := tty.readLine(ctx)
	if err != nil {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

func runPlugin(ctx context.Context, g *Globals, opts *PluginOptions) error {
	out := g.Streams.Out
	switch opts.Action {
	case "pack":
		return runPluginPack(out, opts)
	case "push":
		return runPluginPush(ctx, g, opts)
	case "keygen":
		return runPluginKeygen(ctx, g, opts)
	case "sign":
		return runPluginSign(ctx, g, opts)
	}
	env, err := loadPluginEnv(g, opts)
	if err != nil {
		return err
	}
	switch opts.Action {
	case "add":
		if len(opts.Args) == 0 {
			locked, err := env.mgr.InstallLocked(ctx)
			fmt.Fprintf(out, "%d locked plugin(s) in the cache\n", len(locked))
			return err
		}
		e, err := env.mgr.Add(ctx, opts.Args[0], opts.Yes)
		if err != nil {
			if errors.Is(err, pkg.ErrConsentRefused) {
				return &ExitError{Code: ExitPermission, Err: err}
			}
			return err
		}
		if err := editPluginList(env.configFile, e.Ref, true); err != nil {
			return err
		}
		fmt.Fprintf(out, "added %s %s (%s), tools: %s\n", e.Name, e.Version, e.Digest, strings.Join(e.Tools, ", "))
		env.reportConfig(out, e)
		return nil
	case "update":
		changes, err := env.mgr.Update(ctx, opts.Args, opts.Yes)
		for _, c := range changes {
			switch {
			case c.Err != nil:
				fmt.Fprintf(out, "%s: kept %s: %v\n", c.Name, c.FromVersion, c.Err)
			case !c.Updated:
				fmt.Fprintf(out, "%s: %s is current\n", c.Name, c.FromVersion)
			default:
				fmt.Fprintf(out, "%s: %s → %s (%s → %s)", c.Name, c.FromVersion, c.ToVersion, short(c.FromDigest), short(c.ToDigest))
				if len(c.Increases) > 0 {
					fmt.Fprintf(out, ", now also: %s", strings.Join(c.Increases, "; "))
				}
				fmt.Fprintln(out)
			}
		}
		if lock, lerr := pkg.ReadLock(env.mgr.LockPath); lerr == nil {
			for _, c := range changes {
				if e, ok := lock.ByName(c.Name); ok && c.Updated {
					env.reportConfig(out, *e) // a new version may need new values
				}
			}
		}
		for _, c := range changes {
			if c.Err != nil && err == nil {
				err = &ExitError{Code: ExitToolFailed, Err: fmt.Errorf("some plugins were not updated")}
			}
		}
		return err
	case "list":
		lock, err := pkg.ReadLock(env.mgr.LockPath)
		if err != nil {
			return err
		}
		if opts.JSON {
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			return enc.Encode(lock.Plugins)
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tVERSION\tDIGEST\tTOOLS\tCAPABILITIES\tSOURCE")
		for _, e := range lock.Plugins {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.Version, short(e.Digest), strings.Join(append(e.Tools, e.Hooks...), ","), strings.Join(e.Granted.Describe(), "; "), e.Ref)
		}
		return tw.Flush()
	case "remove":
		e, err := env.mgr.Remove(opts.Args[0])
		if err != nil {
			return err
		}
		if err := editPluginList(env.configFile, e.Ref, false); err != nil {
			return err
		}
		fmt.Fprintf(out, "removed %s (%s)\n", e.Name, e.Ref)
		return nil
	case "verify":
		return runPluginVerify(ctx, out, env.mgr, opts.Repair)
	}
	return usageError{fmt.Errorf("unknown plugin command %q", opts.Action)}
}

// runPluginVerify prints every mismatch as found; with repair, also what
// was restored and what could not be. It exits non-zero while anything
// still does not match.
func runPluginVerify(ctx context.Context, out io.Writer, mgr *pkg.Manager, repair bool) error {
	var r *pkg.Report
	var err error
	if repair {
		r, err = mgr.Repair(ctx)
	} else {
		r, err = mgr.Verify()
	}
	if r == nil {
		return err
	}
	for _, p := range r.Problems {
		fmt.Fprintln(out, p.Error())
	}
	for _, x := range r.Restored {
		fmt.Fprintln(out, x)
	}
	for _, f := range r.Failed {
		fmt.Fprintf(out, "could not repair: %v\n", f)
	}
	if err != nil {
		return err
	}
	if !r.OK() {
		remedy := "nothing was changed; run `toolhost plugin verify --repair` to restore them"
		if repair {
			remedy = "see above why they could not be restored"
		}
		return &ExitError{Code: ExitToolFailed, Err: fmt.Errorf("%d file(s) do not match %s; %s", len(r.Remaining), pkg.LockFile, remedy)}
	}
	fmt.Fprintf(out, "%d plugin(s) match %s\n", len(r.Plugins), pkg.LockFile)
	return nil
}

func runPluginPack(out io.Writer, opts *PluginOptions) error {
	data, m, err := pkg.Pack(opts.Args[0])
	if err != nil {
		return err
	}
	path := opts.Output
	if path == "" {
		path = fmt.Sprintf("%s-%s.tar.gz", m.Name, m.Version)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(out, "%s %s\n", path, pkg.Digest(data))
	return nil
}

// archiveOf packs a directory or reads an archive.
func archiveOf(p string) ([]byte, error) {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		data, _, err := pkg.Pack(p)
		return data, err
	}
	return os.ReadFile(p)
}

func runPluginPush(ctx context.Context, g *Globals, opts *PluginOptions) error {
	out := g.Streams.Out
	data, err := archiveOf(opts.Args[0])
	if err != nil {
		return err
	}
	// The key is read (and its password asked) before anything is
	// published, so a wrong password does not leave an unsigned artifact.
	var key *minisign.PrivateKey
	if opts.Key != "" {
		k, err := readSecretKey(ctx, g, opts)
		if err != nil {
			return err
		}
		key = &k
	}
	digest, err := pkg.Push(ctx, data, opts.Args[1], pkg.RegistryOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "pushed %s@%s\n", opts.Args[1], digest)
	if key != nil {
		if err := pkg.SignOCIWithKey(ctx, opts.Args[1], *key, pkg.RegistryOptions{}); err != nil {
			return err
		}
		fmt.Fprintln(out, "signed")
	}
	return nil
}

func runPluginSign(ctx context.Context, g *Globals, opts *PluginOptions) error {
	out := g.Streams.Out
	target := opts.Args[0]
	var data []byte
	if !strings.HasPrefix(target, "oci://") {
		var err error
		if data, err = os.ReadFile(target); err != nil {
			return err
		}
	}
	key, err := readSecretKey(ctx, g, opts)
	if err != nil {
		return err
	}
	if strings.HasPrefix(target, "oci://") {
		if err := pkg.SignOCIWithKey(ctx, target, key, pkg.RegistryOptions{}); err != nil {
			return err
		}
		fmt.Fprintf(out, "signed %s\n", target)
		return nil
	}
	if err := os.WriteFile(target+".minisig", pkg.SignWithKey(key, data), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s.minisig\n", target)
	return nil
}

func short(digest string) string {
	if len(digest) > 19 {
		return digest[:19]
	}
	return digest
}
