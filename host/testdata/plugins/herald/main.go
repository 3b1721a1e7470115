// Command herald is a test plugin that adds events to the outbox: a POST
// to /say with {"wallet_id", "subject_id", "text"} emits herald.said of
// that wallet, answering 204, or the refusal's code with status 400. It
// subscribes to herald.said too, and keeps the subject of each it hears
// under the key "heard/<subject>".
package main

import (
	"encoding/json"
	"errors"

	"github.com/hearthwallet/hearth/sdk"
)

func init() {
	sdk.HandleHTTP(func(r *sdk.Request) *sdk.Response {
		var in struct {
			WalletID  string `json:"wallet_id"`
			SubjectID string `json:"subject_id"`
			Text      string `json:"text"`
		}
		if err := json.Unmarshal(r.Body, &in); err != nil {
			return sdk.JSON(400, map[string]string{"code": "invalid"})
		}
		err := sdk.Emit(sdk.Emitted{Type: "herald.said", WalletID: in.WalletID, SubjectID: in.SubjectID,
			Data: map[string]string{"text": in.Text}})
		var se *sdk.Error
		if errors.As(err, &se) {
			return sdk.JSON(400, map[string]string{"code": se.Code})
		}
		if err != nil {
			return sdk.JSON(500, map[string]string{"code": err.Error()})
		}
		return &sdk.Response{Status: 204}
	})
	sdk.OnEvent("herald.said", func(e sdk.Event) error {
		return sdk.KV.Set("heard/"+e.ID(), e.Data)
	})
}

func main() {}
