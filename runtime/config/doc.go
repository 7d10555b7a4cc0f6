// Package config finds toolhost's config directories, loads and merges
// toolhost.json / toolhost.jsonc files, and decodes the result strictly.
//
// Files are JSON with comments and trailing commas (JSONC), read with
// github.com/tailscale/hujson: maintained, small, and its Standardize keeps
// byte offsets, so an error can name the file, line and key even after
// comments are stripped.
//
// Config directories, de-duplicated, lowest precedence first:
// $XDG_CONFIG_HOME/toolhost (default ~/.config/toolhost), every .toolhost
// directory from the worktree root down to the working directory,
// ~/.toolhost, then $TOOLHOST_CONFIG_DIR. Config files in those directories
// and at the project root are deep-merged in that order;
// TOOLHOST_CONFIG_CONTENT (inline JSON) is applied last, and
// TOOLHOST_PERMISSION is merged into "permission".
//
// This package imports only runtime/permission from toolhost.
package config
