package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// exporter sends spans to an OTLP/HTTP receiver as JSON
// (application/json, the encoding in otlpjson.go). The SDK's batch span
// processor in front of it holds the bounded queue (2 048 spans by
// default, OTEL_BSP_MAX_QUEUE_SIZE; a full queue drops spans rather than
// block a tool call), and flushes it into ExportSpans at shutdown.
type exporter struct {
	url     string
	header  http.Header
	timeout time.Duration // of one export, retries included
	gzip    bool
	client  *http.Client
	retry   retryPolicy
	stopped atomic.Bool
}

// retryPolicy is the OTLP specification's for a receiver that is
// overloaded or briefly away (429, 502, 503, 504): exponential backoff
// with jitter, or the receiver's Retry-After, within the export's
// timeout.
type retryPolicy struct {
	initial, max time.Duration
}

var defaultRetry = retryPolicy{initial: time.Second, max: 30 * time.Second}

// Default timeout of an export (OTEL_EXPORTER_OTLP_TIMEOUT's default).
const defaultTimeout = 10 * time.Second

// At most this much of a receiver's answer is read.
const maxResponse = 64 << 10

var errStopped = errors.New("tracing: the OTLP exporter is shut down")

// exporterEnv reads the OTEL_EXPORTER_OTLP_* variables the specification
// defines for an exporter, the traces-specific one first.
func exporterEnv(env func(string) string, name string) string {
	if v := env("OTEL_EXPORTER_OTLP_TRACES_" + name); v != "" {
		return v
	}
	return env("OTEL_EXPORTER_OTLP_" + name)
}

// newExporter is the exporter for the traces URL endpoint, configured by
// the rest of the environment: headers, timeout, compression and TLS
// certificates.
func newExporter(endpoint string, env func(string) string) (*exporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tracing: OTLP endpoint %q is not an http:// or https:// URL: set %s (or --otlp-endpoint) to the receiver's base URL, such as http://localhost:4318", endpoint, EnvEndpoint)
	}
	e := &exporter{url: endpoint, header: http.Header{}, timeout: defaultTimeout, retry: defaultRetry}
	e.header.Set("Content-Type", "application/json")
	e.header.Set("User-Agent", "toolhost OTLP/HTTP JSON exporter")
	if h := exporterEnv(env, "HEADERS"); h != "" {
		for k, v := range parseHeaders(h) {
			e.header.Set(k, v)
		}
	}
	if t := exporterEnv(env, "TIMEOUT"); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_TIMEOUT=%q: want milliseconds, such as 10000", t)
		}
		e.timeout = time.Duration(ms) * time.Millisecond
	}
	switch c := exporterEnv(env, "COMPRESSION"); c {
	case "", "none":
	case "gzip":
		e.gzip = true
		e.header.Set("Content-Encoding", "gzip")
	default:
		return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_COMPRESSION=%q: want gzip or none", c)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if tr.TLSClientConfig, err = tlsConfig(env); err != nil {
		return nil, err
	}
	e.client = &http.Client{Transport: tr}
	return e, nil
}

// parseHeaders reads OTEL_EXPORTER_OTLP_HEADERS: key=value pairs
// separated by commas, values percent-encoded. A malformed pair is
// skipped with a warning, as the specification says, and never logged
// with its value (a header is often a credential).
func parseHeaders(s string) map[string]string {
	out := map[string]string{}
	for i, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k, errK := url.PathUnescape(strings.TrimSpace(k))
		v, errV := url.PathUnescape(strings.TrimSpace(v))
		if !ok || k == "" || errK != nil || errV != nil || strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(v, "\r\n") {
			slog.Warn("tracing: a malformed OTEL_EXPORTER_OTLP_HEADERS entry is skipped: want key=value pairs separated by commas", "entry", i+1)
			continue
		}
		out[k] = v
	}
	return out
}

// tlsConfig trusts OTEL_EXPORTER_OTLP_CERTIFICATE's CAs besides the
// system's and presents the client certificate, if any.
func tlsConfig(env func(string) string) (*tls.Config, error) {
	ca, cert, key := exporterEnv(env, "CERTIFICATE"), exporterEnv(env, "CLIENT_CERTIFICATE"), exporterEnv(env, "CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
		}
		if cfg.RootCAs, err = x509.SystemCertPool(); err != nil || cfg.RootCAs == nil {
			cfg.RootCAs = x509.NewCertPool()
		}
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_CERTIFICATE=%s holds no PEM certificate", ca)
		}
	}
	if cert != "" || key != "" {
		c, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY: %w", err)
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	return cfg, nil
}

// ExportSpans implements sdktrace.SpanExporter: one request, retried
// while the receiver says to try again and the timeout allows.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.stopped.Load() {
		return errStopped
	}
	if len(spans) == 0 {
		return nil
	}
	body, err := encodeSpans(spans)
	if err != nil {
		return fmt.Errorf("tracing: encoding %d spans: %w", len(spans), err)
	}
	if e.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(body)
		_ = zw.Close()
		body = b.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	var answered error // the receiver's last answer asking to retry
	for attempt := 0; ; attempt++ {
		wait, err := e.post(ctx, body)
		if err != nil && answered != nil && ctx.Err() != nil {
			// The timeout ended an attempt: what the receiver said
			// before says more than the deadline.
			return fmt.Errorf("%w (the timeout, %s, ended the retries)", answered, e.timeout)
		}
		if err == nil || wait < 0 {
			return err
		}
		answered = err
		if wait == 0 {
			wait = e.retry.backoff(attempt)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return fmt.Errorf("%w (no time left to retry within OTEL_EXPORTER_OTLP_TIMEOUT, %s)", err, e.timeout)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (gave up retrying: %w)", err, ctx.Err())
		case <-t.C:
		}
	}
}

// backoff is the attempt's wait: doubling from initial up to max, with
// up to half of it random so that replicas do not retry in step.
func (p retryPolicy) backoff(attempt int) time.Duration {
	d := p.initial << min(attempt, 16)
	if d > p.max || d <= 0 {
		d = p.max
	}
	return d/2 + rand.N(d/2+1)
}

// post sends body once. It returns nil on success; otherwise the error
// and how long to wait before retrying: -1 for never, 0 for the backoff's
// choice, or what the receiver's Retry-After asks for.
func (e *exporter) post(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return -1, fmt.Errorf("tracing: OTLP request: %w", err)
	}
	req.Header = e.header.Clone()
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return -1, fmt.Errorf("tracing: exporting spans to %s: %w", e.url, err)
		}
		// Refused or reset: the receiver may be restarting.
		return 0, fmt.Errorf("tracing: exporting spans to %s: %w", e.url, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if err := partialSuccess(answer); err != nil {
			return -1, err
		}
		return 0, nil
	case retryable(resp.StatusCode):
		return retryAfter(resp.Header.Get("Retry-After")), fmt.Errorf("tracing: the OTLP receiver at %s answered %s%s", e.url, resp.Status, statusMessage(answer))
	}
	return -1, fmt.Errorf("tracing: the OTLP receiver at %s answered %s%s: check %s or %s (a base URL gets /v1/traces, a traces URL is used as it is) and OTEL_EXPORTER_OTLP_HEADERS",
		e.url, resp.Status, statusMessage(answer), EnvEndpoint, EnvTracesEndpoint)
}

// retryable: the statuses the OTLP specification says to retry.
func retryable(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryAfter is a Retry-After header's delay (seconds or an HTTP date),
// 0 without one.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return max(time.Duration(s)*time.Second, time.Millisecond)
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), time.Millisecond)
	}
	return 0
}

// partialSuccess is an error when a successful answer says spans were
// rejected (ExportTraceServiceResponse.partialSuccess).
func partialSuccess(answer []byte) error {
	var r struct {
		PartialSuccess struct {
			RejectedSpans json.RawMessage `json:"rejectedSpans"`
			ErrorMessage  string          `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if json.Unmarshal(answer, &r) != nil {
		return nil // an empty or non-JSON success is a success
	}
	n, _ := strconv.ParseInt(strings.Trim(string(r.PartialSuccess.RejectedSpans), `"`), 10, 64)
	if n <= 0 && r.PartialSuccess.ErrorMessage == "" {
		return nil
	}
	return fmt.Errorf("tracing: the OTLP receiver rejected %d spans: %s", n, r.PartialSuccess.ErrorMessage)
}

// statusMessage is ": message" from a google.rpc.Status answer, or the
// start of a plain-text one.
func statusMessage(answer []byte) string {
	var st struct {
		Message string `json:"message"`
	}
	msg := string(answer)
	if json.Unmarshal(answer, &st) == nil {
		msg = st.Message
	}
	msg = strings.Join(strings.Fields(msg), " ")
	cut := len(msg) > 200
	if cut {
		msg = strings.ToValidUTF8(msg[:200], "")
	}
	if msg == "" {
		return ""
	}
	// The receiver's words reach the operator's log: control and format
	// characters (terminal escapes, bidi overrides) are written escaped.
	q := strconv.QuoteToGraphic(msg)
	msg = q[1 : len(q)-1]
	if cut {
		msg += "…"
	}
	return ": " + msg
}

// Shutdown implements sdktrace.SpanExporter. The batch processor has
// already flushed into ExportSpans; later exports are refused.
func (e *exporter) Shutdown(context.Context) error {
	e.stopped.Store(true)
	e.client.CloseIdleConnections()
	return nil
}
