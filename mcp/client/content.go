package client

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime"
)

// fromContent turns an MCP tool result into a toolhost result: text (and
// text resources) become the output, images, audio and binary resources
// become attachments, resource links are listed in the output, and
// structured content is printed as JSON when there is no text.
func fromContent(res *sdk.CallToolResult) runtime.Result {
	var out []string
	r := runtime.Result{Metadata: map[string]any{}, Attachments: []runtime.Attachment{}}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			out = append(out, c.Text)
		case *sdk.ImageContent:
			r.Attachments = append(r.Attachments, dataAttachment(c.MIMEType, c.Data, ""))
		case *sdk.AudioContent:
			r.Attachments = append(r.Attachments, dataAttachment(c.MIMEType, c.Data, ""))
		case *sdk.ResourceLink:
			out = append(out, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			if c.Resource.Blob == nil {
				out = append(out, c.Resource.Text)
			} else {
				r.Attachments = append(r.Attachments, dataAttachment(c.Resource.MIMEType, c.Resource.Blob, filepath.Base(c.Resource.URI)))
			}
		}
	}
	if len(out) == 0 && res.StructuredContent != nil {
		if b, err := json.MarshalIndent(res.StructuredContent, "", "  "); err == nil {
			out = append(out, string(b))
		}
	}
	if res.StructuredContent != nil {
		r.Metadata["structuredContent"] = res.StructuredContent
	}
	r.Output = strings.Join(out, "\n")
	return r
}

func dataAttachment(mimeType string, data []byte, name string) runtime.Attachment {
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	return runtime.Attachment{MIME: mimeType, URL: "data:" + mimeType + ";base64," + base64.StdEncoding.EncodeToString(data), Filename: name}
}
