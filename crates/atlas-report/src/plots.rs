//! SVG plots drawn with plotters' SVG backend (text as <text> elements: no font files). Each
//! function returns the SVG document as a string.

use std::ops::Range;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::intervals::Interval;
use crate::metrics::{CoursePoint, Error};

const WIDTH: u32 = 760;
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn plot_err(name: &str) -> impl Fn(String) -> Error + '_ {
    move |reason| Error::Plot {
        name: name.to_string(),
        reason,
    }
}

/// The range [lo, hi] of finite values, widened a little (and to a unit width if flat).
fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-9 {
        return (lo - 0.5, hi + 0.5);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A chart over `x` and `y` with the report's caption, margins and label areas (`y_labels` wide
/// for the names of the left axis).
fn chart<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
    y_labels: u32,
    x: Range<f64>,
    y: Range<f64>,
) -> Result<Chart<'a, 'b>, Error> {
    root.fill(&WHITE)
        .map_err(|e| plot_err(title)(e.to_string()))?;
    ChartBuilder::on(root)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(y_labels)
        .build_cartesian_2d(x, y)
        .map_err(|e| plot_err(title)(e.to_string()))
}

/// An axis number without needless decimals.
fn tidy(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The variants side by side for one metric: a dot per variant with its 95% interval.
pub fn forest(
    title: &str,
    unit: &str,
    rows: &[(String, Option<Interval>)],
) -> Result<String, Error> {
    let err = plot_err(title);
    let n = rows.len().max(1);
    let height = 90 + 24 * n as u32;
    let (x0, x1) = span(
        rows.iter()
            .filter_map(|(_, i)| *i)
            .flat_map(|i| [i.value, i.low, i.high]),
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let labels: Vec<String> = rows.iter().map(|(l, _)| l.clone()).collect();
        let mut chart = chart(&root, title, 200, x0..x1, -0.5f64..(n as f64 - 0.5))?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 13))
            .y_labels(n)
            .y_label_formatter(&|y| {
                let i = y.round();
                if (y - i).abs() < 0.01 && i >= 0.0 {
                    labels.get(n - 1 - i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_desc(unit)
            .disable_y_mesh()
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (k, (_, interval)) in rows.iter().enumerate() {
            let Some(i) = interval else { continue };
            // The first row at the top.
            let y = (n - 1 - k) as f64;
            let clip = |v: f64| v.clamp(x0, x1);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(clip(i.low), y), (clip(i.high), y)],
                    colour(0).stroke_width(2),
                )))
                .map_err(|e| err(e.to_string()))?;
            chart
                .draw_series(std::iter::once(Circle::new(
                    (clip(i.value), y),
                    4,
                    colour(1).filled(),
                )))
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(svg)
}

/// Bars: one per (x, count), e.g. a histogram's bins.
pub fn bars(title: &str, x_desc: &str, bins: &[(f64, f64, u64)]) -> Result<String, Error> {
    let err = plot_err(title);
    let (x0, x1) = span(bins.iter().flat_map(|b| [b.0, b.1]));
    let top = bins.iter().map(|b| b.2).max().unwrap_or(0).max(1) as f64 * 1.08;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 320)).into_drawing_area();
        let mut chart = chart(&root, title, 55, x0..x1, 0f64..top)?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 13))
            .x_label_formatter(&|x| tidy(*x))
            .y_label_formatter(&|y| tidy(*y))
            // Whole counts: no more labels than counts up to the top.
            .y_labels((top as usize + 1).clamp(2, 10))
            .x_desc(x_desc)
            .y_desc("count")
            .disable_x_mesh()
            .draw()
            .map_err(|e| err(e.to_string()))?;
        chart
            .draw_series(bins.iter().map(|&(a, b, c)| {
                Rectangle::new([(a, 0.0), (b, c as f64)], colour(0).mix(0.75).filled())
            }))
            .map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(svg)
}

/// A histogram of whole numbers in at most `max_bins` equal bins.
pub fn histogram(
    title: &str,
    x_desc: &str,
    values: &[u32],
    max_bins: u32,
) -> Result<String, Error> {
    let lo = values.iter().copied().min().unwrap_or(0);
    let hi = values.iter().copied().max().unwrap_or(0);
    let width = ((hi - lo) / max_bins.max(1) + 1).max(1);
    let count = ((hi - lo) / width + 1) as usize;
    let mut bins: Vec<(f64, f64, u64)> = (0..count)
        .map(|b| {
            let a = f64::from(lo + b as u32 * width);
            (a, a + f64::from(width), 0)
        })
        .collect();
    for &v in values {
        bins[((v - lo) / width) as usize].2 += 1;
    }
    bars(title, x_desc, &bins)
}

/// Curves over the plies of a game, one per series, each with its 95% band when `bands`.
pub fn courses(
    title: &str,
    y_desc: &str,
    series: &[(String, &[CoursePoint])],
    bands: bool,
) -> Result<String, Error> {
    let err = plot_err(title);
    let points = || series.iter().flat_map(|(_, s)| s.iter());
    let (x0, x1) = span(points().map(|p| f64::from(p.ply)));
    let (y0, y1) = if bands {
        span(points().flat_map(|p| [p.mean.low, p.mean.high]))
    } else {
        span(points().map(|p| p.mean.value))
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 360)).into_drawing_area();
        let mut chart = chart(&root, title, 55, x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 13))
            .x_label_formatter(&|x| tidy(*x))
            .y_label_formatter(&|y| tidy(*y))
            .x_desc("ply")
            .y_desc(y_desc)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (k, (label, s)) in series.iter().enumerate() {
            let c = colour(k);
            if bands && s.len() > 1 {
                let mut outline: Vec<(f64, f64)> = s
                    .iter()
                    .map(|p| (f64::from(p.ply), p.mean.high.clamp(y0, y1)))
                    .collect();
                outline.extend(
                    s.iter()
                        .rev()
                        .map(|p| (f64::from(p.ply), p.mean.low.clamp(y0, y1))),
                );
                chart
                    .draw_series(std::iter::once(Polygon::new(outline, c.mix(0.15).filled())))
                    .map_err(|e| err(e.to_string()))?;
            }
            chart
                .draw_series(LineSeries::new(
                    s.iter().map(|p| (f64::from(p.ply), p.mean.value)),
                    c.stroke_width(2),
                ))
                .map_err(|e| err(e.to_string()))?
                .label(label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
        }
        if series.len() > 1 {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(svg)
}
