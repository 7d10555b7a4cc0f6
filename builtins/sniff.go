package builtins

// What the read tool does with a file is decided by its first bytes, not
// its name: a JPEG saved as photo.bin is still a photo, and notes saved as
// diagram.bmp are still text. Extensions lie in both directions, and a
// provider rejects an attachment whose media type it does not take (BMP,
// TIFF, HEIC), so naming a type after the extension failed both ways.
//
// Only formats a model can look at become attachments: PNG, JPEG, GIF and
// WebP images, and PDF documents. Other images are refused by name, so the
// model can ask for a conversion instead of guessing. Everything else is
// text unless its bytes say binary (looksBinary).
//
// Signatures made only of printable ASCII ("GIF89a", "BM", "RIFF", an ISO
// box "ftyp") could begin a text file, so for those the rest of the sample
// must not read as text either; a real image of those kinds always holds
// bytes that no UTF-8 text does.

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// sniffAction is what read does with a file of some content type.
type sniffAction int

const (
	sniffText   sniffAction = iota // read as numbered lines
	sniffAttach                    // return as an attachment the model can see
	sniffRefuse                    // refuse, naming the type
)

// contentType is what a file's first bytes say it is.
type contentType struct {
	name   string // "PNG image", "" when no signature matched
	mime   string // attachment media type, for sniffAttach
	action sniffAction
}

var (
	ctPNG  = contentType{"PNG image", "image/png", sniffAttach}
	ctJPEG = contentType{"JPEG image", "image/jpeg", sniffAttach}
	ctGIF  = contentType{"GIF image", "image/gif", sniffAttach}
	ctWebP = contentType{"WebP image", "image/webp", sniffAttach}
	ctPDF  = contentType{"PDF document", "application/pdf", sniffAttach}
	ctBMP  = contentType{"BMP image", "", sniffRefuse}
	ctTIFF = contentType{"TIFF image", "", sniffRefuse}
	ctAVIF = contentType{"AVIF image", "", sniffRefuse}
	ctHEIC = contentType{"HEIC image", "", sniffRefuse}
	ctSVG  = contentType{"SVG image", "", sniffText}
	ctNone = contentType{}
)

// bmpHeaderSizes are the BITMAPINFOHEADER family's sizes: the DIB header
// that follows a BMP's 14-byte file header starts with one of them.
var bmpHeaderSizes = map[uint32]bool{12: true, 16: true, 40: true, 52: true, 56: true, 64: true, 108: true, 124: true}

// heifBrands are the ISO BMFF brands of HEIF images (HEIC, and the generic
// mif1/msf1 that AVIF files may also name first, see ftypType).
var heifBrands = map[string]bool{"heic": true, "heix": true, "hevc": true, "hevx": true, "heim": true, "heis": true, "hevm": true, "hevs": true, "mif1": true, "msf1": true}

// sniff says what head, the first bytes of a file (at most
// readBinarySample), is, and whether it was found to be text beyond doubt
// (looksText), so that read need not test it again. A header cut short
// matches nothing, so a truncated image is judged like any other bytes.
func sniff(head []byte) (ct contentType, text bool) {
	switch {
	case len(head) >= 16 && bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")) && string(head[12:16]) == "IHDR":
		return ctPNG, text
	case len(head) >= 4 && bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return ctJPEG, text
	case len(head) >= 8 && bytes.HasPrefix(head, []byte("%PDF-")) && head[5] >= '1' && head[5] <= '9' && head[6] == '.':
		return ctPDF, text
	case len(head) >= 8 && (bytes.HasPrefix(head, []byte("II*\x00")) || bytes.HasPrefix(head, []byte("MM\x00*")) ||
		bytes.HasPrefix(head, []byte("II+\x00")) || bytes.HasPrefix(head, []byte("MM\x00+"))):
		return ctTIFF, text
	}
	// Printable signatures: the rest must not read as text.
	text = looksText(head)
	if !text {
		switch {
		case len(head) >= 13 && (bytes.HasPrefix(head, []byte("GIF87a")) || bytes.HasPrefix(head, []byte("GIF89a"))):
			return ctGIF, text
		case len(head) >= 16 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
			return ctWebP, text
		case len(head) >= 18 && string(head[:2]) == "BM" && bmpHeaderSizes[binary.LittleEndian.Uint32(head[14:18])]:
			return ctBMP, text
		case len(head) >= 16 && string(head[4:8]) == "ftyp":
			return ftypType(head), text
		}
	}
	if isSVG(head) {
		return ctSVG, text
	}
	return ctNone, text
}

// ftypType reads an ISO BMFF file-type box (size, "ftyp", major brand,
// minor version, compatible brands): AVIF when any brand is avif or avis,
// HEIC when one is a HEIF brand, nothing for other ISO files (MP4 video,
// QuickTime), which the binary test then refuses.
func ftypType(head []byte) contentType {
	size := binary.BigEndian.Uint32(head[:4])
	if size < 16 {
		return ctNone
	}
	end := int(min(size, uint32(len(head))))
	brands := []string{string(head[8:12])}
	for i := 16; i+4 <= end; i += 4 {
		brands = append(brands, string(head[i:i+4]))
	}
	heif := false
	for _, b := range brands {
		if b == "avif" || b == "avis" {
			return ctAVIF
		}
		heif = heif || heifBrands[b]
	}
	if heif {
		return ctHEIC
	}
	return ctNone
}

// isSVG says head starts an SVG document: after a BOM and white space, an
// <svg element, or an XML declaration or comment with <svg later in the
// sample. It is read as text, which is what an SVG is.
func isSVG(head []byte) bool {
	s := bytes.TrimLeft(bytes.TrimPrefix(head, []byte(utf8BOM)), " \t\r\n")
	if bytes.HasPrefix(s, []byte("<svg")) {
		return true
	}
	return (bytes.HasPrefix(s, []byte("<?xml")) || bytes.HasPrefix(s, []byte("<!--")) || bytes.HasPrefix(s, []byte("<!DOCTYPE svg"))) &&
		bytes.Contains(s, []byte("<svg"))
}

// looksBinary applies OpenCode's test to a sample: a NUL byte, or more
// than 30% control characters.
func looksBinary(sample []byte) bool {
	if len(sample) == 0 {
		return false
	}
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	control := 0
	i := 0
	for ; i+8 <= len(sample); i += 8 {
		// Eight bytes at a time: a word with no byte below 0x20 (most
		// words of text) adds nothing; a word with one (a line break) is
		// counted byte by byte.
		x := binary.LittleEndian.Uint64(sample[i:])
		const low7, add, highs = 0x7f7f7f7f7f7f7f7f, 0x6060606060606060, 0x8080808080808080
		if ^(((x&low7)+add)|x)&highs == 0 {
			continue
		}
		for _, b := range sample[i : i+8] {
			control += int(controlByte[b])
		}
	}
	for _, b := range sample[i:] {
		control += int(controlByte[b])
	}
	return float64(control)/float64(len(sample)) > 0.3
}

// controlByte marks the bytes looksBinary counts as control characters:
// below 32, other than tab, newline, vertical tab, form feed and carriage
// return (9 to 13).
var controlByte = func() (t [256]uint8) {
	for b := range 32 {
		if b < 9 || b > 13 {
			t[b] = 1
		}
	}
	return t
}()

// looksText says sample is text beyond doubt: not binary by looksBinary,
// and valid UTF-8 (a rune cut by the sample's end excepted).
func looksText(sample []byte) bool {
	if looksBinary(sample) {
		return false
	}
	if utf8.Valid(sample) {
		return true
	}
	for i := 0; i < len(sample); {
		r, n := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && n == 1 {
			return len(sample)-i < utf8.UTFMax && !utf8.FullRune(sample[i:])
		}
		i += n
	}
	return true
}
