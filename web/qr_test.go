package web_test

import (
	"fmt"
	"image"
	"image/color"
	"regexp"
	"strconv"
	"strings"

	"github.com/chromedp/chromedp"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
)

// qrModules matches one dark module of the dashboard's QR path.
var qrModules = regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`)

// shownQR reads the QR code the page shows (its SVG, labelled label) and
// decodes it as a phone's camera would, from an image of it.
func shownQR(p *person, label string) string {
	p.t.Helper()
	sel := fmt.Sprintf(`svg[aria-label=%q]`, label)
	svg := get(p, "read the QR code", chromedp.Evaluate[[]string](fmt.Sprintf(`(() => {
		const s = document.querySelector(%s);
		return [s.getAttribute('viewBox'), s.querySelector('path').getAttribute('d')];
	})()`, jsString(sel))))
	text, err := decodeQR(svg[0], svg[1])
	if err != nil {
		p.t.Fatalf("the QR code shown does not decode: %v", err)
	}
	return text
}

// decodeQR draws the modules of path d in a viewBox "0 0 n n" at 4 pixels
// a module and decodes the image.
func decodeQR(viewBox, d string) (string, error) {
	f := strings.Fields(viewBox)
	if len(f) != 4 {
		return "", fmt.Errorf("viewBox %q", viewBox)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return "", err
	}
	const scale = 4
	img := image.NewGray(image.Rect(0, 0, n*scale, n*scale))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	ms := qrModules.FindAllStringSubmatch(d, -1)
	if len(ms) == 0 {
		return "", fmt.Errorf("no modules in %.40q", d)
	}
	for _, m := range ms {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		for dy := range scale {
			for dx := range scale {
				img.SetGray(x*scale+dx, y*scale+dy, color.Gray{})
			}
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", err
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
	if err != nil {
		return "", err
	}
	return res.GetText(), nil
}
