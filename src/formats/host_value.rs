//! The caller's values read field by field, each error naming the field:
//! one set of readers for every entry point, whatever holds the value (a
//! JavaScript value in the bindings, which implement [`HostValue`]). A field
//! is read only when asked for — a getter runs then, and a message of a long
//! `contextMessages` only when the budget reaches it.

use serde_json::Value;

use super::input_keys;
use super::js_number::{count_from_number, js_number_text};
use crate::error::{AgentContextError, Result};

/// What a value is, as far as a reader cares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    String,
    Array,
    Function,
    BigInt,
    Symbol,
    Object,
}

/// A value of the caller's language.
pub trait HostValue: Sized {
    /// A property name, made once for many reads.
    type Key;
    fn key(name: &str) -> Self::Key;
    fn shape(&self) -> Shape;
    /// The text of a string.
    fn text(&self) -> Option<String>;
    /// `self[key]`, or the description of what reading it threw.
    fn field(&self, key: &Self::Key) -> std::result::Result<Self, String>;
    /// `self[index]`, or what reading it threw.
    fn item(&self, index: usize) -> std::result::Result<Self, String>;
    /// An array's length.
    fn length(&self) -> usize;
    /// An object's own enumerable string keys.
    fn own_keys(&self) -> Vec<String>;
    /// The value as JSON (`what` names it in errors).
    fn json(&self, what: &str) -> Result<Value>;
}

/// `typeof`-style name of a value, for error messages.
pub fn type_name<V: HostValue>(value: &V) -> &'static str {
    match value.shape() {
        Shape::Undefined => "undefined",
        Shape::Null => "null",
        Shape::Array => "an array",
        Shape::String => "a string",
        Shape::Number(_) => "a number",
        Shape::Bool(_) => "a boolean",
        Shape::Function => "a function",
        Shape::BigInt => "a bigint",
        Shape::Symbol => "a symbol",
        Shape::Object => "an object",
    }
}

/// `undefined` or `null`.
pub fn is_absent<V: HostValue>(value: &V) -> bool {
    matches!(value.shape(), Shape::Undefined | Shape::Null)
}

/// A non-null object that is not an array or a function.
pub fn is_object<V: HostValue>(value: &V) -> bool {
    value.shape() == Shape::Object
}

/// `{path} must be {what}, got {its type}`.
pub fn must_be<V: HostValue>(path: &str, what: &str, value: &V) -> AgentContextError {
    AgentContextError::invalid(format!("{path} must be {what}, got {}", type_name(value)))
}

/// `value` when it is an object, else [`must_be`] `{what}`.
pub fn object<'v, V: HostValue>(value: &'v V, path: &str, what: &str) -> Result<&'v V> {
    match is_object(value) {
        true => Ok(value),
        false => Err(must_be(path, what, value)),
    }
}

/// Options that may be left out (`undefined`, `null`) or be an object:
/// whether they were given.
pub fn given<V: HostValue>(options: &V, path: &str) -> Result<bool> {
    if is_absent(options) {
        return Ok(false);
    }
    object(options, path, "an object").map(|_| true)
}

/// `target[key]`, a getter that throws reported against `path`.
pub fn get<V: HostValue>(target: &V, key: &V::Key, path: &dyn Fn() -> String) -> Result<V> {
    target.field(key).map_err(|thrown| {
        AgentContextError::invalid(format!("{} could not be read: {thrown}", path()))
    })
}

/// `target[name]`, whose path is `{prefix}{name}`.
pub fn field<V: HostValue>(target: &V, prefix: &str, name: &str) -> Result<V> {
    get(target, &V::key(name), &|| format!("{prefix}{name}"))
}

/// A string that may be missing or `null`.
pub fn optional_string<V: HostValue>(
    value: V,
    path: &dyn Fn() -> String,
) -> Result<Option<String>> {
    if is_absent(&value) {
        return Ok(None);
    }
    required_string(value, path).map(Some)
}

/// A string that must be there.
pub fn required_string<V: HostValue>(value: V, path: &dyn Fn() -> String) -> Result<String> {
    value
        .text()
        .ok_or_else(|| must_be(&path(), "a string", &value))
}

/// A boolean that may be missing or `null`.
pub fn optional_bool<V: HostValue>(value: V, path: &dyn Fn() -> String) -> Result<Option<bool>> {
    match value.shape() {
        Shape::Undefined | Shape::Null => Ok(None),
        Shape::Bool(b) => Ok(Some(b)),
        _ => Err(must_be(&path(), "a boolean", &value)),
    }
}

/// A whole number `>= 0` (a count or a limit); missing or `null`: `default`.
pub fn optional_count<V: HostValue>(
    value: V,
    default: usize,
    path: &dyn Fn() -> String,
) -> Result<usize> {
    if is_absent(&value) {
        return Ok(default);
    }
    whole(&value, count_from_number).ok_or_else(|| not_whole(&path(), &value))
}

/// The number `value` holds, read by `read` (`None` for anything else).
pub fn whole<V: HostValue, T>(value: &V, read: impl Fn(f64) -> Option<T>) -> Option<T> {
    match value.shape() {
        Shape::Number(n) => read(n),
        _ => None,
    }
}

/// `{path} must be a whole number >= 0, got …`.
pub fn not_whole<V: HostValue>(path: &str, value: &V) -> AgentContextError {
    AgentContextError::invalid(format!(
        "{path} must be a whole number >= 0, got {}",
        describe_value(value)
    ))
}

/// A number as JS prints it, or the type of anything else.
pub fn describe_value<V: HostValue>(value: &V) -> String {
    match value.shape() {
        Shape::Number(n) => js_number_text(n),
        _ => type_name(value).to_owned(),
    }
}

/// The warnings for the own keys of `value` that `known` does not hold
/// (none when it is not an object), worded by `crate::formats::input_keys`.
pub fn unknown_key_warnings<V: HostValue>(value: &V, label: &str, known: &[&str]) -> Vec<String> {
    if !is_object(value) {
        return Vec::new();
    }
    input_keys::unknown_key_warnings(label, &value.own_keys(), known)
}
