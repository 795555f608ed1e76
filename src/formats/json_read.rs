//! Typed reading of JSON values with errors that name the field path, e.g.
//! `messages[3].toolCalls[0].id must be a string, got a number`.
//!
//! `null` counts as missing for optional fields (as `?.` does in the seeds);
//! a value that is present with the wrong type is always an error.

use serde_json::{Map, Value};

use crate::error::{AgentContextError, Result};

/// How a value's type reads in an error message.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong_type(path: &str, expected: &str, value: &Value) -> AgentContextError {
    AgentContextError::invalid(format!(
        "{path} must be {expected}, got {}",
        type_name(value)
    ))
}

/// An object being read (borrowed for `'a`), with its path for error
/// messages (borrowed for `'p`; `""` at the top level).
#[derive(Clone, Copy)]
pub struct Obj<'a, 'p> {
    map: &'a Map<String, Value>,
    path: &'p str,
}

impl<'a, 'p> Obj<'a, 'p> {
    /// `value` must be an object.
    pub fn new(value: &'a Value, path: &'p str) -> Result<Obj<'a, 'p>> {
        match value {
            Value::Object(map) => Ok(Obj { map, path }),
            other => Err(wrong_type(path, "an object", other)),
        }
    }

    /// The path of a field of this object.
    pub fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// The field's value; `None` when missing or `null`.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// A nested object that must be present.
    pub fn req_obj<'q>(&self, key: &str, path: &'q str) -> Result<Obj<'a, 'q>> {
        match self.map.get(key) {
            Some(value) => Obj::new(value, path),
            None => Err(AgentContextError::invalid(format!(
                "{path} must be an object, got undefined"
            ))),
        }
    }

    /// The first of `keys` that is present (e.g. `toolCalls` or `tool_calls`).
    pub fn get_any(&self, keys: &[&'static str]) -> Option<(&'static str, &'a Value)> {
        keys.iter().find_map(|k| self.get(k).map(|v| (*k, v)))
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(wrong_type(&self.path_of(key), "a string", other)),
        }
    }

    pub fn req_str(&self, key: &str) -> Result<&'a str> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(wrong_type(&self.path_of(key), "a string", other)),
            None => Err(AgentContextError::invalid(format!(
                "{} must be a string, got undefined",
                self.path_of(key)
            ))),
        }
    }

    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(wrong_type(&self.path_of(key), "a boolean", other)),
        }
    }

    /// A whole number `>= 0`.
    pub fn opt_count(&self, key: &str) -> Result<Option<usize>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(v) => Ok(Some(usize::try_from(v).unwrap_or(usize::MAX))),
                None => Err(AgentContextError::invalid(format!(
                    "{} must be a whole number >= 0, got {n}",
                    self.path_of(key)
                ))),
            },
            Some(other) => Err(wrong_type(&self.path_of(key), "a whole number >= 0", other)),
        }
    }

    /// An array of strings.
    pub fn opt_str_list(&self, key: &str) -> Result<Option<Vec<&'a str>>> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let path = self.path_of(key);
        let items = value
            .as_array()
            .ok_or_else(|| wrong_type(&path, "an array of strings", value))?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str()
                    .ok_or_else(|| wrong_type(&format!("{path}[{i}]"), "a string", item))
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// An array; its items are read by the caller.
    pub fn opt_array(&self, key: &str) -> Result<Option<&'a Vec<Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(other) => Err(wrong_type(&self.path_of(key), "an array", other)),
        }
    }

    pub fn req_array(&self, key: &str) -> Result<&'a Vec<Value>> {
        match self.map.get(key) {
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(wrong_type(&self.path_of(key), "an array", other)),
            None => Err(AgentContextError::invalid(format!(
                "{} must be an array, got undefined",
                self.path_of(key)
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_path_and_the_type() {
        let v = json!({"a": 1, "b": null, "c": ["x", 2], "d": "s", "n": -1, "f": 1.5});
        let o = Obj::new(&v, "options").unwrap();
        assert_eq!(
            o.opt_str("a").unwrap_err().message(),
            "options.a must be a string, got a number"
        );
        assert_eq!(o.opt_str("b").unwrap(), None);
        assert_eq!(
            o.req_str("b").unwrap_err().message(),
            "options.b must be a string, got null"
        );
        assert_eq!(
            o.req_str("zz").unwrap_err().message(),
            "options.zz must be a string, got undefined"
        );
        assert_eq!(
            o.opt_str_list("c").unwrap_err().message(),
            "options.c[1] must be a string, got a number"
        );
        assert_eq!(
            o.opt_count("n").unwrap_err().message(),
            "options.n must be a whole number >= 0, got -1"
        );
        assert_eq!(
            o.opt_count("f").unwrap_err().message(),
            "options.f must be a whole number >= 0, got 1.5"
        );
        assert_eq!(o.opt_str("d").unwrap(), Some("s"));
        let top = Obj::new(&v, "").unwrap();
        assert_eq!(top.path_of("a"), "a");
        assert_eq!(
            Obj::new(&json!([1]), "x").err().unwrap().message(),
            "x must be an object, got an array"
        );
    }
}
