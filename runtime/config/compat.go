package config

// Compat switches reading other agents' files.
type Compat struct {
	// OpenCode: also load TypeScript and JavaScript tools from OpenCode's
	// folders (.opencode/tool/ and .opencode/tools/ in the working
	// directory and its parents, ~/.config/opencode/tool/). Default true.
	OpenCode *bool `json:"opencode,omitempty"`
}

// OpenCodeTools reports whether OpenCode's tool folders are read.
func (c Compat) OpenCodeTools() bool { return c.OpenCode == nil || *c.OpenCode }
