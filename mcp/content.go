package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/runtime"
)

// attachmentContent turns a tool's attachment into MCP content: an image
// for image/*, an embedded resource for anything else. URL is a data: URL
// or a file path; a file that cannot be read becomes a resource link so the
// client still learns of it. Nil when the attachment is unusable.
func attachmentContent(a runtime.Attachment) sdk.Content {
	data, mimeType, uri, err := attachmentData(a)
	if err != nil {
		if uri != "" {
			return &sdk.ResourceLink{URI: uri, Name: attachmentName(a), MIMEType: a.MIME}
		}
		return nil
	}
	if strings.HasPrefix(mimeType, "image/") {
		return &sdk.ImageContent{Data: data, MIMEType: mimeType}
	}
	if uri == "" {
		uri = "attachment:" + attachmentName(a)
	}
	rc := &sdk.ResourceContents{URI: uri, MIMEType: mimeType}
	if strings.HasPrefix(mimeType, "text/") {
		rc.Text = string(data)
	} else {
		rc.Blob = data
	}
	return &sdk.EmbeddedResource{Resource: rc}
}

func attachmentName(a runtime.Attachment) string {
	if a.Filename != "" {
		return a.Filename
	}
	if !strings.HasPrefix(a.URL, "data:") {
		return filepath.Base(a.URL)
	}
	return "attachment"
}

// attachmentData returns the bytes, MIME type and (for files) URI of an
// attachment.
func attachmentData(a runtime.Attachment) (data []byte, mimeType, uri string, err error) {
	mimeType = a.MIME
	if rest, ok := strings.CutPrefix(a.URL, "data:"); ok {
		meta, payload, found := strings.Cut(rest, ",")
		if !found {
			return nil, "", "", fmt.Errorf("attachment %s: data URL without a comma", attachmentName(a))
		}
		if mimeType == "" {
			mimeType, _, _ = strings.Cut(meta, ";")
		}
		if strings.HasSuffix(meta, ";base64") {
			data, err = base64.StdEncoding.DecodeString(payload)
		} else {
			var s string
			s, err = url.PathUnescape(payload)
			data = []byte(s)
		}
		return data, mimeType, "", err
	}
	path := strings.TrimPrefix(a.URL, "file://")
	uri = (&url.URL{Scheme: "file", Path: path}).String()
	if mimeType == "" {
		mimeType = mime.TypeByExtension(filepath.Ext(path))
	}
	data, err = os.ReadFile(path)
	return data, mimeType, uri, err
}

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
