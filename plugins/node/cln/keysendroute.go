package cln

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A keysend's route: askrene's getroutes (as xpay finds its routes, with
// the node's own channels as they are now, and free), one part only,
// within the fee cap, and without what earlier tries failed at, which a
// layer of the keysend's own leaves out. lightningd's getroute, which
// takes exclusions, is deprecated from v26.06 and refused by a node that
// disallows deprecated commands.

// keysendLayer is the askrene layer of the keysend of hash.
func keysendLayer(hash string) string { return "hearth-keysend-" + hash }

// keysendRoute asks for one route from self that delivers req's amount to
// req's destination within maxFee, through layer when it is set.
func (n *Node) keysendRoute(ctx context.Context, self, dest string, amount, maxFee int64, layer string) ([]routeStep, error) {
	req := getroutesRequest{Source: self, Destination: dest, AmountMsat: amount, MaxFeeMsat: maxFee,
		Layers: []string{"auto.localchans", "auto.sourcefree"}, FinalCLTV: keysendFinalCLTV, MaxParts: 1}
	if layer != "" {
		req.Layers = append(req.Layers, layer)
	}
	var res keysendRoutes
	if err := n.call(ctx, req, &res); err != nil {
		return nil, err
	}
	if len(res.Routes) != 1 || len(res.Routes[0].Path) == 0 {
		return nil, fmt.Errorf("cln answered %d routes, not one", len(res.Routes))
	}
	r := res.Routes[0]
	steps := make([]routeStep, len(r.Path))
	for i, h := range r.Path {
		scid, _, ok := strings.Cut(h.SCIDDir, "/")
		if !ok || h.AmountOutMsat == nil || h.NodeIDOut == "" {
			return nil, errors.New("cln answered a route without v26.06's hop fields (short_channel_id_dir, node_id_out, amount_out_msat)")
		}
		steps[i] = routeStep{ID: h.NodeIDOut, Channel: scid, AmountMsat: *h.AmountOutMsat, Delay: h.CLTVOut}
	}
	if last := steps[len(steps)-1]; last.ID != dest || last.AmountMsat != amount {
		return nil, fmt.Errorf("cln answered a route that delivers %d msat to %s", last.AmountMsat, last.ID)
	}
	return steps, nil
}

// leaveOut adds what to layer, a channel ("scid/direction") or a node,
// making the layer first when made is false.
func (n *Node) leaveOut(ctx context.Context, layer string, made bool, what string) error {
	if !made {
		if err := n.call(ctx, askreneCreateLayerRequest{Layer: layer}, nil); err != nil {
			return err
		}
	}
	if strings.Contains(what, "/") {
		return n.call(ctx, askreneUpdateChannelRequest{Layer: layer, SCIDDir: what, Enabled: false}, nil)
	}
	return n.call(ctx, askreneDisableNodeRequest{Layer: layer, Node: what}, nil)
}

// removeLayer removes the keysend's layer, even once ctx ended.
func (n *Node) removeLayer(ctx context.Context, layer string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	n.call(ctx, askreneRemoveLayerRequest{Layer: layer}, nil) //nolint:errcheck // a layer not persisted goes with the node's restart
}
