//! Head-and-tail truncation around the marker `\n[... truncated N bytes ...]\n`
//! (N = bytes removed). Cuts fall on UTF-8 character boundaries.

use crate::prompt::text::{ceil_char_boundary, decimal_digits, floor_char_boundary};

pub const MARKER_OPEN: &str = "\n[... truncated ";
pub const MARKER_CLOSE: &str = " bytes ...]\n";

/// Bytes of the marker that stands for `removed` bytes.
pub fn marker_len(removed: u64) -> u64 {
    (MARKER_OPEN.len() + MARKER_CLOSE.len()) as u64 + decimal_digits(removed)
}

/// Keep `text[..head_end]` and `text[tail_start..]`, with the marker between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub head_end: usize,
    pub tail_start: usize,
}

impl Cut {
    /// Bytes taken out of the text.
    pub fn removed(&self) -> u64 {
        (self.tail_start - self.head_end) as u64
    }

    /// Bytes of the text after the cut, marker included.
    pub fn body_len(&self, text_len: usize) -> u64 {
        text_len as u64 - self.removed() + marker_len(self.removed())
    }

    /// Appends the cut text to `out`.
    pub fn write(&self, text: &str, out: &mut String) {
        out.push_str(&text[..self.head_end]);
        out.push_str(MARKER_OPEN);
        out.push_str(&self.removed().to_string());
        out.push_str(MARKER_CLOSE);
        out.push_str(&text[self.tail_start..]);
    }
}

/// The cut keeping as much of `text` as possible whose body (kept bytes plus
/// marker) is at most `max_body`; `None` when not even the bare marker fits.
/// Half of what is kept comes from the head, half from the tail.
pub fn cut_to_fit(text: &str, max_body: u64) -> Option<Cut> {
    let len = text.len() as u64;
    if len == 0 {
        return None;
    }
    // Largest kept size K with K + marker_len(len - K) <= max_body and K < len.
    // The marker's width depends on how many digits `len - K` has; try each.
    let mut keep = None;
    for digits in 1..=decimal_digits(len) {
        let overhead = marker_len(0) - 1 + digits;
        if max_body < overhead {
            break;
        }
        let k = (max_body - overhead).min(len - 1);
        if decimal_digits(len - k) <= digits {
            keep = Some(k);
            break;
        }
    }
    let keep = keep? as usize;
    let head_end = floor_char_boundary(text, keep.div_ceil(2));
    let tail_len = keep - head_end;
    let tail_start = ceil_char_boundary(text, text.len() - tail_len);
    // Rounding to boundaries only removes more; a longer N (one more digit)
    // is paid for by the extra byte removed, so the body still fits.
    Some(Cut {
        head_end,
        tail_start,
    })
}

/// The smallest cut that still keeps at least `min_keep` bytes of `text`
/// (rounding outwards to character boundaries); `None` when that removes nothing.
pub fn cut_keeping(text: &str, min_keep: usize) -> Option<Cut> {
    let head_end = ceil_char_boundary(text, min_keep.div_ceil(2));
    let tail_len = min_keep.saturating_sub(head_end);
    let tail_start = floor_char_boundary(text, text.len().saturating_sub(tail_len)).max(head_end);
    (tail_start > head_end).then_some(Cut {
        head_end,
        tail_start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str, cut: Cut) -> String {
        let mut s = String::new();
        cut.write(text, &mut s);
        s
    }

    #[test]
    fn marker_reads_as_specified() {
        let text = "a".repeat(100);
        let cut = cut_to_fit(&text, 60).unwrap();
        let out = render(&text, cut);
        assert_eq!(out.len() as u64, cut.body_len(text.len()));
        assert!(out.len() <= 60);
        assert_eq!(
            out,
            format!(
                "{}\n[... truncated 70 bytes ...]\n{}",
                "a".repeat(15),
                "a".repeat(15)
            )
        );
    }

    #[test]
    fn fits_exactly_at_every_budget_and_never_splits_chars() {
        let text = "héllo wörld 🎉 ünïcødé ".repeat(20);
        for max in 0..text.len() as u64 {
            match cut_to_fit(&text, max) {
                Some(cut) => {
                    let out = render(&text, cut);
                    assert!(out.len() as u64 <= max, "max {max}: {}", out.len());
                    assert_eq!(out.len() as u64, cut.body_len(text.len()));
                    // Optimal within 3 bytes per cut point (character rounding).
                    assert!(out.len() as u64 + 7 >= max, "max {max}: {}", out.len());
                }
                None => assert!(max < marker_len(text.len() as u64)),
            }
        }
    }

    #[test]
    fn digit_growth_is_accounted() {
        // Removing 9 vs 10 bytes changes the marker width.
        let text = "x".repeat(50);
        assert_eq!(
            cut_to_fit(&text, 29),
            None,
            "a 2-digit marker needs 30 bytes"
        );
        for max in 30..50 {
            let cut = cut_to_fit(&text, max).unwrap();
            assert!(cut.body_len(text.len()) <= max);
        }
    }

    #[test]
    fn keeping_rounds_outwards() {
        let text = "€".repeat(1000); // 3000 bytes
        let cut = cut_keeping(&text, 2048).unwrap();
        let kept = text.len() as u64 - cut.removed();
        assert!((2048..2048 + 6).contains(&kept), "{kept}");
        assert!(text.is_char_boundary(cut.head_end) && text.is_char_boundary(cut.tail_start));
        assert_eq!(cut_keeping("short", 2048), None);
    }
}
