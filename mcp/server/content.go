package server

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/content/resources"
	"github.com/toolhost/toolhost/runtime"
)

// attachmentContent turns a tool's attachment into MCP content: an image
// for image/*, an audio clip for audio/*, an embedded resource for
// anything else. URL is a data: URL
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
	if strings.HasPrefix(mimeType, "audio/") {
		return &sdk.AudioContent{Data: data, MIMEType: mimeType}
	}
	if uri == "" {
		uri = "attachment:" + attachmentName(a)
	}
	rc := &sdk.ResourceContents{URI: uri, MIMEType: mimeType}
	if resources.IsText(mimeType) && mimeType != "" && utf8.Valid(data) {
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
