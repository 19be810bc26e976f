//! The comparison: every change from a struct's snapshot to its declaration, and whether the
//! append-only rule allows it; the same comparison over TensorFlow's own release history.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Change, MemberLayout, StructLayout};

/// Every change between the snapshots and the declarations.
pub fn compare_all(snapshots: &[StructLayout], declared: &[StructLayout]) -> Vec<Change> {
    let by_key: BTreeMap<_, _> = declared.iter().map(|d| (d.key(), d)).collect();
    let mut changes = Vec::new();
    for old in snapshots {
        match by_key.get(&old.key()) {
            Some(new) => changes.extend(compare(old, new)),
            None => changes.push(Change {
                group: old.group.clone(),
                name: old.name.clone(),
                member: None,
                allowed: false,
                what: "no longer declared: a published struct is never removed (or it was \
                       renamed, or moved to another file or module)"
                    .to_string(),
            }),
        }
    }
    for new in declared {
        if !snapshots.iter().any(|old| old.key() == new.key()) {
            changes.push(Change {
                group: new.group.clone(),
                name: new.name.clone(),
                member: None,
                allowed: false,
                what: "has no snapshot: a new struct is recorded with `cargo xtask abi-check \
                       --bless`"
                    .to_string(),
            });
        }
    }
    changes
}

/// The changes from one struct's snapshot `old` to its declaration `new`.
pub fn compare(old: &StructLayout, new: &StructLayout) -> Vec<Change> {
    let change = |member: &str, allowed: bool, what: String| Change {
        group: new.group.clone(),
        name: new.name.clone(),
        member: Some(member.to_string()),
        allowed,
        what,
    };
    let mut changes = Vec::new();
    for (index, was) in old.members.iter().enumerate() {
        let Some(now) = new.members.get(index) else {
            changes.push(change(
                &was.name,
                false,
                format!(
                    "removed (was at offset {}): members are never removed; deprecate it instead",
                    was.offset
                ),
            ));
            continue;
        };
        if now.name != was.name {
            let what = match new.members.iter().position(|m| m.name == was.name) {
                Some(at) => format!(
                    "moved from position {index} (offset {}) to position {at} (offset {}): \
                     members are never reordered",
                    was.offset, new.members[at].offset
                ),
                None => format!(
                    "renamed to `{}` (offset {}): a member is never renamed; deprecate it and \
                     append a new member instead",
                    now.name, now.offset
                ),
            };
            changes.push(change(&was.name, false, what));
            continue;
        }
        if now.resolved != was.resolved {
            let spelled = if now.ty == was.ty {
                format!(" (still spelled `{}`: an alias changed underneath)", now.ty)
            } else {
                format!(" (declared `{}`, was `{}`)", now.ty, was.ty)
            };
            changes.push(change(
                &was.name,
                false,
                format!(
                    "type changed from `{}` to `{}`{spelled}: a member's type never changes, even \
                     at the same size; deprecate it and append a new member instead",
                    was.resolved, now.resolved
                ),
            ));
        } else if now.ty != was.ty {
            changes.push(change(
                &was.name,
                true,
                format!(
                    "declared `{}` instead of `{}`, the same type (`{}`)",
                    now.ty, was.ty, now.resolved
                ),
            ));
        }
        if now.align != was.align {
            changes.push(change(
                &was.name,
                false,
                format!("alignment changed from {} to {}", was.align, now.align),
            ));
        }
        if (now.offset, now.size) != (was.offset, was.size) {
            changes.push(change(
                &was.name,
                false,
                format!(
                    "moved or resized from bytes {}..{} to {}..{}",
                    was.offset,
                    was.offset + was.size,
                    now.offset,
                    now.offset + now.size
                ),
            ));
        }
        if now.since != was.since {
            changes.push(change(
                &was.name,
                false,
                format!(
                    "`since` changed from {} to {}: the version that added a member is a \
                     published fact",
                    was.since, now.since
                ),
            ));
        }
        match (was.deprecated, now.deprecated) {
            (None, None) => {}
            (Some(a), Some(b)) if a == b => {}
            (None, Some(version)) => changes.push(change(
                &was.name,
                true,
                format!("deprecated in version {version}"),
            )),
            (Some(version), None) => changes.push(change(
                &was.name,
                false,
                format!(
                    "no longer deprecated (was deprecated in version {version}): a deprecated \
                     slot is never reused; append a new member instead"
                ),
            )),
            (Some(a), Some(b)) => changes.push(change(
                &was.name,
                false,
                format!(
                    "deprecation moved from version {a} to {b}: the version that deprecated a \
                     member is a published fact"
                ),
            )),
        }
    }
    for appended in new.members.iter().skip(old.members.len()) {
        changes.push(change(
            &appended.name,
            true,
            format!(
                "appended at offset {} (`{}`, since {})",
                appended.offset, appended.ty, appended.since
            ),
        ));
    }
    changes
}

/// Every change between consecutive releases of TensorFlow's own StreamExecutor C API structs
/// (from the committed layout facts) that the append-only rule forbids.
pub fn tensorflow_history(root: &Path) -> Result<Vec<Change>, String> {
    let layouts = crate::se_abi_releases::read_layouts(root)?;
    let as_layout = |release: &str, st: &crate::se_abi_releases::FactStruct| StructLayout {
        group: format!("TensorFlow {release}"),
        name: st.name.clone(),
        members: st
            .members
            .iter()
            .map(|m| MemberLayout {
                name: m.name.clone(),
                ty: normalize_type(&m.declared),
                resolved: m.resolved.clone(),
                offset: m.offset,
                size: m.size,
                align: m.align,
                since: 1,
                deprecated: None,
            })
            .collect(),
    };
    let mut breaks = Vec::new();
    for pair in layouts.windows(2) {
        for new in &pair[1].structs {
            if let Some(old) = pair[0].structs.iter().find(|s| s.name == new.name) {
                let changes = compare(
                    &as_layout(&pair[0].release, old),
                    &as_layout(&pair[1].release, new),
                );
                breaks.extend(changes.into_iter().filter(|c| !c.allowed));
            }
        }
    }
    Ok(breaks)
}

/// A type as declared, with the whitespace that does not separate two words removed, so that
/// `* mut c_void` and `*mut c_void` compare equal whatever the compiler's `stringify!` spacing.
pub fn normalize_type(ty: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '"';
    let chars: Vec<char> = ty.trim().chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            let start = i;
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            let before = chars[start - 1];
            if i < chars.len() && word(before) && word(chars[i]) {
                out.push(' ');
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::abi_check::SNAPSHOT_DIR;
    use crate::abi_check::snapshot::read_snapshots;
    use crate::abi_check::tests::workspace_root;

    /// A member whose resolved type is its declared one (as for plain integers).
    fn member(name: &str, ty: &str, offset: u64, since: u64) -> MemberLayout {
        MemberLayout {
            name: name.to_string(),
            ty: ty.to_string(),
            resolved: ty.to_string(),
            offset,
            size: 8,
            align: 8,
            since,
            deprecated: None,
        }
    }

    fn device() -> StructLayout {
        StructLayout {
            group: "g".to_string(),
            name: "Dev".to_string(),
            members: vec![
                member("struct_size", "usize", 0, 1),
                member("next", "*mut c_void", 8, 1),
                member("a", "i64", 16, 1),
                member("b", "*mut A", 24, 2),
            ],
        }
    }

    fn breaking(changes: &[Change]) -> Vec<String> {
        changes
            .iter()
            .filter(|c| !c.allowed)
            .map(|c| c.to_string())
            .collect()
    }

    /// The seed's `SE_Device` as header versions 1 to 5 declare it: each version is an allowed
    /// edit of the one before (appends, and the deprecation of `data` in version 4), by the same
    /// comparison the check makes.
    #[test]
    fn each_seed_version_is_an_allowed_edit_of_the_one_before() {
        let snapshots = read_snapshots(&workspace_root().join(SNAPSHOT_DIR)).unwrap();
        let seed: Vec<&StructLayout> = (1..=5)
            .map(|v| {
                snapshots
                    .iter()
                    .find(|s| {
                        s.group == format!("examples/se_device/versions/v{v}")
                            && s.name == "SE_Device"
                    })
                    .unwrap()
            })
            .collect();
        let mut allowed = Vec::new();
        for pair in seed.windows(2) {
            let changes = compare(pair[0], pair[1]);
            assert!(changes.iter().all(|c| c.allowed), "{changes:?}");
            allowed.extend(changes.into_iter().map(|c| (c.group, c.member.unwrap())));
        }
        let names: Vec<(&str, &str)> = allowed
            .iter()
            .map(|(g, m)| (g.as_str(), m.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("examples/se_device/versions/v2", "device_handle"),
                ("examples/se_device/versions/v3", "data"),
                ("examples/se_device/versions/v4", "data"),
                ("examples/se_device/versions/v5", "data2")
            ]
        );
    }

    #[test]
    fn comparator_allows_append_and_deprecation_only() {
        let old = device();
        assert!(compare(&old, &old).is_empty());

        let mut new = old.clone();
        new.members.push(member("c", "u64", 32, 3));
        new.members[3].deprecated = Some(3);
        let changes = compare(&old, &new);
        assert_eq!(changes.len(), 2);
        assert!(changes.iter().all(|c| c.allowed), "{changes:?}");

        type Edit = fn(&mut StructLayout);
        let cases: [(Edit, &str); 9] = [
            (
                |s| s.members[2].resolved = "u64".into(),
                "struct `Dev` (g), member `a`: type changed from `i64` to `u64` (still spelled \
                 `i64`: an alias changed underneath)",
            ),
            (
                |s| {
                    s.members[3].ty = "*mut B".into();
                    s.members[3].resolved = "*mut B".into();
                },
                "struct `Dev` (g), member `b`: type changed from `*mut A` to `*mut B` (declared \
                 `*mut B`, was `*mut A`)",
            ),
            (
                |s| s.members[3].align = 4,
                "struct `Dev` (g), member `b`: alignment changed from 8 to 4",
            ),
            (
                |s| s.members[3].name = "c".into(),
                "struct `Dev` (g), member `b`: renamed to `c` (offset 24)",
            ),
            (
                |s| s.members.swap(2, 3),
                "struct `Dev` (g), member `a`: moved from position 2 (offset 16) to position 3",
            ),
            (
                |s| {
                    s.members.pop();
                },
                "struct `Dev` (g), member `b`: removed (was at offset 24)",
            ),
            (
                |s| s.members[3].since = 1,
                "struct `Dev` (g), member `b`: `since` changed from 2 to 1",
            ),
            (
                |s| s.members[3].size = 4,
                "struct `Dev` (g), member `b`: moved or resized from bytes 24..32 to 24..28",
            ),
            (
                |s| s.members[0].name = "size".into(),
                "struct `Dev` (g), member `struct_size`: renamed to `size`",
            ),
        ];
        for (edit, want) in cases {
            let mut new = old.clone();
            edit(&mut new);
            let found = breaking(&compare(&old, &new));
            assert!(
                found.iter().any(|c| c.starts_with(want)),
                "want {want:?}, got {found:?}"
            );
        }

        // A deprecated slot is never put back to use, nor its deprecation moved.
        let mut deprecated = old.clone();
        deprecated.members[3].deprecated = Some(3);
        let mut reused = deprecated.clone();
        reused.members[3].deprecated = None;
        assert_eq!(
            breaking(&compare(&deprecated, &reused)),
            [
                "struct `Dev` (g), member `b`: no longer deprecated (was deprecated in version 3): \
              a deprecated slot is never reused; append a new member instead"
            ]
        );
        reused.members[3].deprecated = Some(4);
        assert_eq!(breaking(&compare(&deprecated, &reused)).len(), 1);

        // A new spelling of the same type is allowed, and said.
        let mut respelled = old.clone();
        respelled.members[2].ty = "MyInt".into();
        let changes = compare(&old, &respelled);
        assert!(breaking(&changes).is_empty(), "{changes:?}");
        assert_eq!(
            changes[0].to_string(),
            "struct `Dev` (g), member `a`: declared `MyInt` instead of `i64`, the same type (`i64`)"
        );

        // Structs appear and disappear only with --bless.
        let other = StructLayout {
            name: "Other".into(),
            ..old.clone()
        };
        let all = compare_all(std::slice::from_ref(&old), std::slice::from_ref(&other));
        assert_eq!(
            breaking(&all),
            [
                "struct `Dev` (g): no longer declared: a published struct is never removed (or \
                 it was renamed, or moved to another file or module)",
                "struct `Other` (g): has no snapshot: a new struct is recorded with `cargo \
                 xtask abi-check --bless`"
            ]
        );
    }

    #[test]
    fn types_compare_whatever_the_spacing() {
        assert_eq!(normalize_type("* mut  c_void"), "*mut c_void");
        assert_eq!(normalize_type("*mut c_void"), "*mut c_void");
        assert_eq!(
            normalize_type("Option < unsafe extern \"C\" fn (* mut A) -> u8 >"),
            normalize_type("Option<unsafe extern \"C\" fn(*mut A) -> u8>")
        );
        assert_ne!(normalize_type("*mut A"), normalize_type("*mut B"));
        assert_ne!(normalize_type("i32"), normalize_type("u32"));
    }

    /// The same comparison over TensorFlow's own release history finds its one break of the
    /// append-only rule: 2.7 inserted three members before `host_callback`.
    #[test]
    fn tensorflow_history_reports_its_own_break() {
        let breaks: Vec<String> = tensorflow_history(&workspace_root())
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            breaks,
            [
                "struct `SP_StreamExecutor` (TensorFlow 2.7.4), member `host_callback`: moved from \
              position 32 (offset 256) to position 35 (offset 280): members are never reordered"
            ]
        );
    }
}
