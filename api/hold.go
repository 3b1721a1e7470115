package api

import (
	"encoding/hex"
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Hold invoices (core/ledger/hold.go): made for a payment hash whose
// preimage the caller keeps, then settled with it or cancelled.

type holdInvoiceRequest struct {
	invoiceRequest
	// PaymentHash is the SHA-256 of the preimage the caller keeps, hex.
	PaymentHash *string `json:"payment_hash"`
	// DescriptionHash, hex, is committed to instead of the description.
	DescriptionHash *string `json:"description_hash,omitempty"`
	// MinFinalCLTVExpiryDelta is the blocks the last HTLC gives the
	// payee to settle; 144 when not given.
	MinFinalCLTVExpiryDelta *int64 `json:"min_final_cltv_expiry_delta,omitempty"`
}

type adminHoldInvoiceRequest struct {
	WalletID *string `json:"wallet_id"`
	holdInvoiceRequest
}

type settleRequest struct {
	// Preimage is the secret whose SHA-256 is the payment hash, hex.
	Preimage *string `json:"preimage"`
}

func (r *holdInvoiceRequest) toNew() (ledger.NewHoldInvoice, error) {
	ni, err := r.invoiceRequest.toNew()
	if err != nil {
		return ledger.NewHoldInvoice{}, err
	}
	if r.PaymentHash == nil {
		return ledger.NewHoldInvoice{}, required("payment_hash")
	}
	if r.DescriptionHash != nil {
		h, err := hex.DecodeString(*r.DescriptionHash)
		if err != nil || len(h) != 32 {
			return ledger.NewHoldInvoice{}, ledger.ErrInvalidInvoice.Reasonf("description_hash must be 32 bytes, hex")
		}
		ni.DescriptionHash = h
	}
	return ledger.NewHoldInvoice{NewInvoice: ni, PaymentHash: *r.PaymentHash, MinFinalCLTVExpiryDelta: r.MinFinalCLTVExpiryDelta}, nil
}

func (s *Server) createMyHoldInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	var body holdInvoiceRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	return s.createHoldInvoiceIn(w, req, callerWallet(req.Context()), &body)
}

func (s *Server) createHoldInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	var body adminHoldInvoiceRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	walletID, err := s.namedWallet(req, body.WalletID)
	if err != nil {
		return err
	}
	return s.createHoldInvoiceIn(w, req, walletID, &body.holdInvoiceRequest)
}

// createHoldInvoiceIn issues the hold invoice body asks for into walletID.
func (s *Server) createHoldInvoiceIn(w http.ResponseWriter, req bunrouter.Request, walletID string, body *holdInvoiceRequest) error {
	ni, err := body.toNew()
	if err != nil {
		return err
	}
	inv, err := s.ledger.CreateHoldInvoice(req.Context(), walletID, ni)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, inv)
	return nil
}

func (s *Server) settleMyInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	return s.settleIn(w, req, callerWallet(req.Context()))
}

func (s *Server) settleInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	return s.settleIn(w, req, "")
}

// settleIn settles the hold invoice of the path, of walletID ("" for any).
func (s *Server) settleIn(w http.ResponseWriter, req bunrouter.Request, walletID string) error {
	id, err := pathID(req)
	if err != nil {
		return err
	}
	var body settleRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	if body.Preimage == nil {
		return required("preimage")
	}
	inv, err := s.ledger.SettleHold(req.Context(), walletID, id, *body.Preimage)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, inv)
	return nil
}

func (s *Server) cancelMyInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	return s.cancelIn(w, req, callerWallet(req.Context()))
}

func (s *Server) cancelInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	return s.cancelIn(w, req, "")
}

// cancelIn cancels the hold invoice of the path, of walletID ("" for any).
func (s *Server) cancelIn(w http.ResponseWriter, req bunrouter.Request, walletID string) error {
	id, err := pathID(req)
	if err != nil {
		return err
	}
	inv, err := s.ledger.CancelHold(req.Context(), walletID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, inv)
	return nil
}
