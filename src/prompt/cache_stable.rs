//! Cache-stable trimming (SPEC §14): when context messages must be dropped,
//! drop a multiple of `cacheBlock` of them.
//!
//! Providers cache a prompt's prefix (OpenAI/Codex automatic prompt caching,
//! Gemini implicit caching). When a conversation grows by one message per
//! call and the budget is full, dropping the minimum moves the oldest kept
//! message every call, so no two consecutive prompts share anything after the
//! instructions. Rounding the number dropped up to a multiple of the block
//! keeps the first kept message in place for about `cacheBlock` calls: the
//! prompt then only grows at the end of its context section. The price is up
//! to `cacheBlock - 1` context messages fewer than would fit.
//!
//! The rounding is a pure function of the message count, so it is stateless
//! and deterministic, and it only ever drops more whole messages (oldest
//! first): every rule of §3 and the budget invariant still hold.

use std::num::NonZeroUsize;

use crate::error::{AgentContextError, Result};
use crate::formats::host_value::{self as host, HostValue, Shape};
use crate::formats::js_number::js_number_text;

/// The block when `cacheStable` is on and `cacheBlock` is not given.
pub const DEFAULT_CACHE_BLOCK: NonZeroUsize = match NonZeroUsize::new(16) {
    Some(n) => n,
    None => unreachable!(),
};

/// How many of `total` messages to drop when at least `minimum` must go:
/// `minimum` rounded up to a multiple of `block`, never more than `total`.
/// Without a block, or when nothing must go, exactly `minimum`.
pub fn messages_to_drop(minimum: usize, total: usize, block: Option<NonZeroUsize>) -> usize {
    match block {
        Some(block) if minimum > 0 => minimum
            .div_ceil(block.get())
            .saturating_mul(block.get())
            .min(total)
            .max(minimum),
        _ => minimum,
    }
}

/// The block in effect for the options `cacheStable` and `cacheBlock` as
/// given (`None`: missing, `undefined` or `null`). `cacheBlock` is checked
/// even when `cacheStable` is off, so a bad value never passes silently; it
/// only takes effect with `cacheStable: true`.
pub fn cache_block_option(
    cache_stable: Option<bool>,
    cache_block: Option<f64>,
) -> Result<Option<NonZeroUsize>> {
    let block = match cache_block {
        None => DEFAULT_CACHE_BLOCK,
        Some(n) => block_from_number(n)?,
    };
    Ok((cache_stable == Some(true)).then_some(block))
}

/// The call's `{ debug?, cacheStable?, cacheBlock? }` as the caller gave
/// them (an object): `debug` (`None`: left out) and the block in effect.
pub fn call_flags<V: HostValue>(options: &V) -> Result<(Option<bool>, Option<NonZeroUsize>)> {
    let flag = |key: &str| -> Result<Option<bool>> {
        let path = || format!("options.{key}");
        host::optional_bool(host::field(options, "options.", key)?, &path)
    };
    let (debug, cache_stable) = (flag("debug")?, flag("cacheStable")?);
    let block = host::field(options, "options.", "cacheBlock")?;
    let block = match block.shape() {
        Shape::Undefined | Shape::Null => None,
        Shape::Number(n) => Some(n),
        _ => return Err(invalid_block(host::type_name(&block))),
    };
    Ok((debug, cache_block_option(cache_stable, block)?))
}

/// A positive whole number; beyond `usize::MAX` it is `usize::MAX` (the
/// same as "all the messages").
fn block_from_number(value: f64) -> Result<NonZeroUsize> {
    if !(value >= 1.0 && value.fract() == 0.0) {
        return Err(invalid_block(&js_number_text(value)));
    }
    // `as` saturates; the value is a whole number >= 1 here.
    Ok(NonZeroUsize::new(value as usize).unwrap_or(NonZeroUsize::MAX))
}

/// The error for a `cacheBlock` that is not a positive integer (`got` is the
/// value as JS prints it, or its type).
pub fn invalid_block(got: &str) -> AgentContextError {
    AgentContextError::invalid(format!(
        "options.cacheBlock must be a positive integer, got {got}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn block(n: usize) -> Option<NonZeroUsize> {
        NonZeroUsize::new(n)
    }

    #[test]
    fn rounds_up_to_the_block_within_the_total() {
        assert_eq!(messages_to_drop(0, 100, block(16)), 0);
        assert_eq!(messages_to_drop(1, 100, block(16)), 16);
        assert_eq!(messages_to_drop(16, 100, block(16)), 16);
        assert_eq!(messages_to_drop(17, 100, block(16)), 32);
        assert_eq!(messages_to_drop(90, 100, block(16)), 96);
        assert_eq!(messages_to_drop(97, 100, block(16)), 100);
        assert_eq!(messages_to_drop(100, 100, block(16)), 100);
        assert_eq!(messages_to_drop(7, 100, None), 7);
        assert_eq!(messages_to_drop(7, 100, block(1)), 7);
        assert_eq!(messages_to_drop(3, 10, Some(NonZeroUsize::MAX)), 10);
    }

    #[test]
    fn reads_the_options() {
        assert_eq!(cache_block_option(None, None), Ok(None));
        assert_eq!(cache_block_option(Some(false), Some(4.0)), Ok(None));
        assert_eq!(cache_block_option(Some(true), None), Ok(block(16)));
        assert_eq!(cache_block_option(Some(true), Some(4.0)), Ok(block(4)));
        assert_eq!(
            cache_block_option(Some(true), Some(1e300)),
            Ok(Some(NonZeroUsize::MAX))
        );
        for bad in [0.0, -1.0, 2.5, f64::NAN, f64::INFINITY, -0.0] {
            for stable in [None, Some(false), Some(true)] {
                let err = cache_block_option(stable, Some(bad)).unwrap_err();
                assert_eq!(err.code(), ErrorCode::InvalidInput);
                assert!(err.message().contains("options.cacheBlock"), "{err}");
            }
        }
    }
}
