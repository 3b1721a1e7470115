package regtest

import (
	"context"
	"fmt"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
)

// SendCoins pays sat to addr on-chain from the node's wallet, at a low
// fee rate, and returns the transaction id. The transaction is in the
// mempool; Mine confirms it.
func (n *Node) SendCoins(ctx context.Context, addr string, sat int64) (string, error) {
	res, err := n.ln.SendCoins(ctx, &lnrpc.SendCoinsRequest{Addr: addr, Amount: sat, SatPerVbyte: 2})
	if err != nil {
		return "", fmt.Errorf("%s send coins: %w", n.Name, err)
	}
	return res.Txid, nil
}

// SendMany pays each address its amount in one transaction and returns
// its id.
func (n *Node) SendMany(ctx context.Context, amounts map[string]int64) (string, error) {
	res, err := n.ln.SendMany(ctx, &lnrpc.SendManyRequest{AddrToAmount: amounts, SatPerVbyte: 2})
	if err != nil {
		return "", fmt.Errorf("%s send many: %w", n.Name, err)
	}
	return res.Txid, nil
}

// Height returns the chain's height as btcd sees it.
func (n *Network) Height() (int64, error) { return n.Btcd.height() }

// BlockHash returns the hash of the block at height as btcd sees it.
func (n *Network) BlockHash(height int64) (string, error) {
	c, err := n.Btcd.client()
	if err != nil {
		return "", err
	}
	defer c.Shutdown()
	h, err := c.GetBlockHash(height)
	if err != nil {
		return "", fmt.Errorf("btcd block hash at %d: %w", height, err)
	}
	return h.String(), nil
}

// InvalidateTip reorganises the chain's best block away (btcd's
// invalidateblock): its transactions go back to the mempool, and the chain
// is a block shorter until more are mined. It waits until both nodes are
// back at the height below, and returns the height invalidated.
func (n *Network) InvalidateTip(ctx context.Context) (int64, error) {
	c, err := n.Btcd.client()
	if err != nil {
		return 0, err
	}
	defer c.Shutdown()
	hash, height, err := c.GetBestBlock()
	if err != nil {
		return 0, fmt.Errorf("best block: %w", err)
	}
	if err := c.InvalidateBlock(hash); err != nil {
		return 0, fmt.Errorf("invalidating block %d: %w", height, err)
	}
	for _, node := range []*Node{n.Hearth, n.Peer} {
		err := poll(ctx, 60*time.Second, fmt.Sprintf("lnd %s back at height %d", node.Name, height-1), func(ctx context.Context) error {
			info, err := node.ln.GetInfo(ctx, &lnrpc.GetInfoRequest{})
			if err != nil {
				return err
			}
			if int64(info.BlockHeight) != int64(height)-1 {
				return fmt.Errorf("at height %d", info.BlockHeight)
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return int64(height), nil
}
