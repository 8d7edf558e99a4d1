package main

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one run's trace with its legend label.
type Series struct {
	Label string
	Trace Trace
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

// Figure builds fig:experiments: (a) the objective at every iteration and (b) the
// fractions of coordinates at −1 (dashed) and at 1 (solid) at every iteration, one color
// per series.
func Figure(title string, series []Series) (objective, fractions *plot.Plot, err error) {
	objective = plot.New()
	objective.Title.Text = "(a) objective ½xᵀAx, " + title
	objective.X.Label.Text = "iteration (escape)"
	objective.Y.Label.Text = "f(x)"
	fractions = plot.New()
	fractions.Title.Text = "(b) fraction of coordinates at −1 (dashed) and 1 (solid)"
	fractions.X.Label.Text = "iteration (escape)"
	fractions.Y.Label.Text = "fraction"
	fractions.Y.Min, fractions.Y.Max = 0, 1
	for k, s := range series {
		col := palette[k%len(palette)]
		pts := func(ys []float64) plotter.XYs {
			xy := make(plotter.XYs, len(ys))
			for i, y := range ys {
				xy[i].X, xy[i].Y = float64(s.Trace.Iter[i]), y
			}
			return xy
		}
		lf, err := plotter.NewLine(pts(s.Trace.F))
		if err != nil {
			return nil, nil, err
		}
		lf.Color = col
		objective.Add(lf)
		objective.Legend.Add(s.Label, lf)
		lm, err := plotter.NewLine(pts(s.Trace.FracMinus))
		if err != nil {
			return nil, nil, err
		}
		lm.Color = col
		lm.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		lp, err := plotter.NewLine(pts(s.Trace.Frac1))
		if err != nil {
			return nil, nil, err
		}
		lp.Color = col
		fractions.Add(lm, lp)
		fractions.Legend.Add(s.Label, lp)
	}
	objective.Legend.Top = true
	fractions.Legend.Left = true
	fractions.Legend.Top = true
	objective.Add(plotter.NewGrid())
	fractions.Add(plotter.NewGrid())
	return objective, fractions, nil
}

// SaveFigure writes the two panels side by side as base.png and base.svg.
func SaveFigure(base, title string, series []Series) error {
	a, b, err := Figure(title, series)
	if err != nil {
		return err
	}
	const w, h = 12 * vg.Inch, 4.5 * vg.Inch
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	for _, ext := range []string{"png", "svg"} {
		var c draw.Canvas
		var wt io.WriterTo
		switch ext {
		case "png":
			img := vgimg.New(w, h)
			c = draw.New(img)
			wt = vgimg.PngCanvas{Canvas: img}
		case "svg":
			svg := vgsvg.New(w, h)
			c = draw.New(svg)
			wt = svg
		}
		tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4, PadLeft: vg.Millimeter * 2,
			PadRight: vg.Millimeter * 2, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
		canvases := plot.Align([][]*plot.Plot{{a, b}}, tiles, c)
		a.Draw(canvases[0][0])
		b.Draw(canvases[0][1])
		f, err := os.Create(base + "." + ext)
		if err != nil {
			return err
		}
		if _, err := wt.WriteTo(f); err != nil {
			f.Close()
			return fmt.Errorf("writing %s.%s: %w", base, ext, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
