package hostfns

import (
	"context"
	"encoding/json"
	"fmt"
)

// MetadataUpdate is the JSON a guest passes to metadata.
type MetadataUpdate struct {
	Title    string         `json:"title,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// runMetadata is metadata: it delivers live progress to the caller, exactly like a built-in
// tool's Context.Metadata.
//
//	(import "extism:host/user" "metadata" (func (param i64) (result i64)))
//
// Parameter: offset of a block holding MetadataUpdate JSON.
// Result: always 0. Outside execute (description, schema) the update is
// dropped; malformed JSON aborts the guest.
func runMetadata(_ context.Context, c *Call, raw []byte) (any, error) {
	var u MetadataUpdate
	if err := json.Unmarshal(raw, &u); err != nil {
		return nil, fmt.Errorf("update is not MetadataUpdate JSON: %w", err)
	}
	if c.Context != nil {
		c.Context.Metadata(u.Title, u.Metadata)
	}
	return nil, nil
}
