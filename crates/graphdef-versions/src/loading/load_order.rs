//! The order `tf.saved_model.load` restores a library's functions in. (The graph each becomes
//! there, and their instantiation, are the [`Importer`](super::import::Importer)'s.)

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::schema::attr_value::Value;
use crate::schema::{FunctionDef, FunctionDefLibrary};

/// The functions of a library in the order `tf.saved_model.load` restores them
/// (`_sort_function_defs`, `function_deserialization.py`): a function after the library
/// functions it calls, ready functions taken last-in first-out. Functions in a cycle are left
/// out (TensorFlow refuses the whole library then).
///
/// As in Python, the dependencies are a dict by name, so a name given to two functions keeps
/// its first place and the later one's dependencies, and its count of dependencies left may
/// go below zero (a name ready twice releases its dependents twice); only a count that reaches
/// zero makes a function ready.
pub(super) fn load_order(library: Option<&FunctionDefLibrary>) -> Vec<&FunctionDef> {
    let Some(library) = library else {
        return Vec::new();
    };
    let names: HashSet<&str> = library
        .function
        .iter()
        .filter_map(|f| f.signature.as_ref().map(|s| s.name.as_str()))
        .collect();
    let mut deps_by_name: Vec<(&str, BTreeSet<&str>)> = Vec::new();
    let mut place: HashMap<&str, usize> = HashMap::new();
    for function in &library.function {
        let Some(name) = function.signature.as_ref().map(|s| s.name.as_str()) else {
            continue;
        };
        let mut deps = BTreeSet::new();
        for node in &function.node_def {
            if names.contains(node.op.as_str()) {
                deps.insert(node.op.as_str());
                continue;
            }
            for value in node.attr.values() {
                match &value.value {
                    Some(Value::Func(f)) if names.contains(f.name.as_str()) => {
                        deps.insert(f.name.as_str());
                    }
                    Some(Value::List(list)) => {
                        for f in &list.func {
                            if names.contains(f.name.as_str()) {
                                deps.insert(f.name.as_str());
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        match place.get(name) {
            Some(&at) => deps_by_name[at].1 = deps,
            None => {
                place.insert(name, deps_by_name.len());
                deps_by_name.push((name, deps));
            }
        }
    }
    let mut in_count: HashMap<&str, i64> = HashMap::new();
    let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
    for (name, deps) in &deps_by_name {
        for &dep in deps {
            edges.entry(dep).or_default().push(name);
            *in_count.entry(name).or_default() += 1;
        }
    }
    let by_name: HashMap<&str, &FunctionDef> = library
        .function
        .iter()
        .filter_map(|f| f.signature.as_ref().map(|s| (s.name.as_str(), f)))
        .collect();
    let mut ready: Vec<&str> = library
        .function
        .iter()
        .filter_map(|f| f.signature.as_ref().map(|s| s.name.as_str()))
        .filter(|name| in_count.get(name).copied().unwrap_or(0) == 0)
        .collect();
    let mut order = Vec::new();
    while let Some(name) = ready.pop() {
        if let Some(function) = by_name.get(name) {
            order.push(*function);
        }
        for dest in edges.get(name).map(Vec::as_slice).unwrap_or_default() {
            if let Some(count) = in_count.get_mut(dest) {
                *count -= 1;
                if *count == 0 {
                    ready.push(*dest);
                }
            }
        }
    }
    order
}
