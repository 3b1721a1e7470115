package nostrtest

import "encoding/binary"

// clientFrames follows the websocket frames a client sends, across however
// the reads split them, and mutes two kinds before khatru reads them, since
// khatru drops subscriptions without the lock its broadcasts read under
// (see Relay):
//   - a CLOSE message becomes a message khatru does not know (it answers a
//     NOTICE), so the relay keeps that subscription, as it keeps those of a
//     connection that ended. Clients that close their subscriptions
//     (@getalby/sdk does) then race nothing.
//   - a websocket close frame, which ends khatru's reader as surely as a
//     read error and removes the connection's subscriptions, becomes a ping:
//     khatru answers it and reads on, and the end of the stream that follows
//     is hidden by serialConn.Read.
//
// A frame's first bytes pass on only once enough of it has arrived to judge
// it: its header and the start of its message.
type clientFrames struct {
	in    []byte // read from the client: the judged bytes first, then a frame's start not judged yet
	ready int    // how many bytes of in are judged
	skip  uint64 // the current frame's payload bytes still to come, which pass unjudged
}

// read fills b with judged bytes, reading the client through next until
// there are some. A timeout of next's returns with what is judged.
func (f *clientFrames) read(b []byte, next func([]byte) (int, error)) (int, error) {
	for f.ready == 0 {
		buf := make([]byte, max(len(b), 64))
		n, err := next(buf)
		f.in = append(f.in, buf[:n]...)
		f.judge()
		if err != nil && f.ready == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(b, f.in[:f.ready])
	f.in = f.in[n:]
	f.ready -= n
	return n, nil
}

// judge walks the frames in f.in past f.ready as far as they have arrived.
func (f *clientFrames) judge() {
	for {
		rest := f.in[f.ready:]
		if f.skip > 0 {
			k := min(f.skip, uint64(len(rest)))
			f.ready += int(k)
			f.skip -= k
			if f.skip > 0 {
				return
			}
			continue
		}
		if len(rest) < 2 {
			return
		}
		head, size := 2, uint64(rest[1]&0x7f)
		switch size {
		case 126:
			head = 4
		case 127:
			head = 10
		}
		masked := rest[1]&0x80 != 0
		if masked {
			head += 4
		}
		if len(rest) < head {
			return
		}
		switch size {
		case 126:
			size = uint64(binary.BigEndian.Uint16(rest[2:4]))
		case 127:
			size = binary.BigEndian.Uint64(rest[2:10])
		}
		peek := min(size, 8)
		if uint64(len(rest)-head) < peek {
			return
		}
		mute(rest[:head+int(peek)], head, masked)
		f.ready += head + int(peek)
		f.skip = size - peek
	}
}

// mute rewrites, in place, a frame of which frame holds the head bytes of
// header and the first payload bytes: a close frame becomes a ping, a CLOSE
// message ["XLOSE"….
func mute(frame []byte, head int, masked bool) {
	if frame[0]&0x0f == 0x8 {
		frame[0] = frame[0]&0xf0 | 0x9
		return
	}
	const label = `["CLOSE"`
	payload := frame[head:]
	if !masked || len(payload) < len(label) {
		return
	}
	key := frame[head-4 : head]
	for i := range len(label) {
		if payload[i]^key[i%4] != label[i] {
			return
		}
	}
	payload[2] ^= 'C' ^ 'X'
}
