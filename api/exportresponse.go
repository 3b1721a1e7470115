package api

import (
	"errors"
	"mime"
	"net/http"
	"time"

	"github.com/hearthwallet/hearth/core/export"
)

// exportWriteTimeout bounds each write of an export: a client that reads
// nothing for this long is dropped. It stands in for the server's
// WriteTimeout, which bounds a whole answer and would cut a long export.
const exportWriteTimeout = time.Minute

// exportResponse is the answer an export streams into (export.Sink). Its
// status and headers go out with its first bytes, so that an export that
// fails before any row is still an error answer; started says whether
// they went.
type exportResponse struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	format   export.Format
	filename string
	started  bool
}

func newExportResponse(w http.ResponseWriter, format export.Format, filename string) *exportResponse {
	return &exportResponse{w: w, rc: http.NewResponseController(w), format: format, filename: filename}
}

// start sends the status and headers.
func (r *exportResponse) start() {
	r.started = true
	h := r.w.Header()
	h.Set("Content-Type", r.format.ContentType())
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": r.filename}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // a proxy passes the rows on as they come
	r.w.WriteHeader(http.StatusOK)
}

// Write sends p, within exportWriteTimeout.
func (r *exportResponse) Write(p []byte) (int, error) {
	if !r.started {
		r.start()
	}
	if err := r.rc.SetWriteDeadline(time.Now().Add(exportWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	return r.w.Write(p)
}

// Flush hands what was written to the client.
func (r *exportResponse) Flush() error {
	if !r.started {
		return nil
	}
	if err := r.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// finish answers an export that wrote nothing (JSON Lines of no record):
// the status and headers, and an empty body.
func (r *exportResponse) finish() {
	if !r.started {
		r.start()
	}
}

var _ export.Sink = (*exportResponse)(nil)
