//! The wire-level GraphDef readers (version sniff, op scan, VersionDef rewrite) on arbitrary
//! bytes: a value or a typed error, never a panic; and on anything TensorFlow's own parser
//! reads as a GraphDef, the sniffer and the op scan must read what it reads.
//!
//! The reference is not prost. prost accepts bytes TensorFlow refuses: it reads a map field
//! (`NodeDef.attr`...) whatever its wire type says, so a NodeDef whose `attr` tag was flipped
//! to "start group" decodes with prost, while TF 2.21's `GraphDef.FromString` (upb) finds no
//! end of that group and says "Wire format was corrupt"
//! (`crates/graphdef-versions/tests/data/findings/`). And prost refuses bytes TensorFlow reads:
//! a known field with another wire type than declared is an unknown field to upb and to
//! protobuf's C++ runtime, skipped, not an error.
//!
//! So the reference walks the bytes by the schema itself (`proto/graphdef/`, compiled by
//! protox at start), the way upb does: a field whose number and wire type match the schema is
//! read (strings must be UTF-8, messages are walked in turn, packed repeated scalars must
//! split exactly; varints are written again in their shortest form), anything else is an
//! unknown field that only has to be well framed (groups
//! closed by their own end tag); nesting deeper than upb's 100 levels is refused. What it
//! accepts, it writes again without the unknown fields, and that canonical copy, which prost
//! reads exactly as TensorFlow reads the input, is what the readers are compared with.
//!
//! Varints follow upb too (checked against TF 2.21): a value takes at most ten bytes and the
//! bits past the 64th are dropped (prost refuses a tenth byte above 1); a tag or a length takes
//! at most five bytes (prost reads longer, zero-padded ones).
#![no_main]

use std::sync::OnceLock;

use graphdef_versions::schema::{GraphDef, VersionDef};
use graphdef_versions::{rewrite_graph_def_versions, scan_ops, sniff};
use libfuzzer_sys::fuzz_target;
use prost::Message;
use prost_reflect::{DescriptorPool, Kind, MessageDescriptor};

/// upb's default nesting limit (`kUpb_WireFormat_DefaultDepthLimit`), messages and groups.
const DEPTH_LIMIT: u32 = 100;

fn graph_def_descriptor() -> &'static MessageDescriptor {
    static GRAPH_DEF: OnceLock<MessageDescriptor> = OnceLock::new();
    GRAPH_DEF.get_or_init(|| {
        let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/../proto/graphdef");
        let files = protox::compile(["graph.proto"], [schema]).expect("proto/graphdef compiles");
        DescriptorPool::from_file_descriptor_set(files)
            .expect("a valid descriptor set")
            .get_message_by_name("tensorflow.GraphDef")
            .expect("graph.proto declares tensorflow.GraphDef")
    })
}

/// What TensorFlow's parser reads from `bytes` as a GraphDef, as the canonical copy and
/// decoded; `None` where it refuses them.
fn tensorflow_parse(bytes: &[u8]) -> Option<(Vec<u8>, GraphDef)> {
    let canonical = canonical(bytes, graph_def_descriptor(), 0)?;
    let graph = GraphDef::decode(canonical.as_slice()).expect("prost reads a canonical GraphDef");
    Some((canonical, graph))
}

/// A canonical GraphDef without its `versions` fields (4), everything else as it was.
///
/// Graphs are compared this way, as bytes, not as decoded messages: a float that is NaN
/// (`tensor_content` turned into a packed `double_val` by a flipped tag, say) is not equal to
/// itself, and maps decode into hash maps that encode in no fixed order.
fn without_versions(mut canonical: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while !canonical.is_empty() {
        let start = canonical;
        let (number, wire_type) = read_key(&mut canonical).expect("canonical");
        skip_unknown(wire_type, number, &mut canonical, 0).expect("canonical");
        if number != 4 {
            out.extend_from_slice(&start[..start.len() - canonical.len()]);
        }
    }
    out
}

/// `bytes` as a `message`, rewritten without its unknown fields; `None` where upb refuses it.
fn canonical(mut buf: &[u8], message: &MessageDescriptor, depth: u32) -> Option<Vec<u8>> {
    if depth >= DEPTH_LIMIT {
        return None;
    }
    let mut out = Vec::new();
    while !buf.is_empty() {
        let (number, wire_type) = read_key(&mut buf)?;
        let declared = message.get_field(number);
        let Some(field) = declared.filter(|field| {
            let kind = field.kind();
            wire_type == WireType::of(&kind)
                || (wire_type == WireType::LengthDelimited && field.is_list() && packable(&kind))
        }) else {
            skip_unknown(wire_type, number, &mut buf, depth)?;
            continue;
        };
        encode_key(number, wire_type, &mut out);
        match wire_type {
            // Written again in prost's (shortest) form, with the value upb reads.
            WireType::Varint => {
                encode_varint(read_varint(&mut buf, 10)?, &mut out);
                continue;
            }
            WireType::ThirtyTwoBit | WireType::SixtyFourBit => {
                let width = if wire_type == WireType::ThirtyTwoBit {
                    4
                } else {
                    8
                };
                out.extend_from_slice(buf.get(..width)?);
                buf = &buf[width..];
                continue;
            }
            _ => {}
        }
        let payload = length_delimited(&mut buf)?;
        let payload = match field.kind() {
            Kind::Message(inner) => canonical(payload, &inner, depth + 1)?,
            Kind::String => std::str::from_utf8(payload).ok()?.as_bytes().to_vec(),
            Kind::Bytes => payload.to_vec(),
            scalar => split_packed(payload, &scalar)?,
        };
        encode_varint(payload.len() as u64, &mut out);
        out.extend_from_slice(&payload);
    }
    Some(out)
}

fn packable(kind: &Kind) -> bool {
    !matches!(kind, Kind::String | Kind::Bytes | Kind::Message(_))
}

/// A packed repeated scalar must split into whole elements; varints are written again in
/// their shortest form.
fn split_packed(mut payload: &[u8], kind: &Kind) -> Option<Vec<u8>> {
    match WireType::of(kind) {
        WireType::Varint => {
            let mut out = Vec::new();
            while !payload.is_empty() {
                encode_varint(read_varint(&mut payload, 10)?, &mut out);
            }
            Some(out)
        }
        WireType::ThirtyTwoBit => payload.len().is_multiple_of(4).then(|| payload.to_vec()),
        WireType::SixtyFourBit => payload.len().is_multiple_of(8).then(|| payload.to_vec()),
        _ => None,
    }
}

/// The wire types of the protobuf encoding (its spec's numbers). Written here rather than taken
/// from prost's `#[doc(hidden)]` `encoding` module, which is outside prost's semver promise.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WireType {
    Varint = 0,
    SixtyFourBit = 1,
    LengthDelimited = 2,
    StartGroup = 3,
    EndGroup = 4,
    ThirtyTwoBit = 5,
}

impl WireType {
    /// The wire type a key's low three bits name; 6 and 7 name none.
    fn from_low_bits(bits: u32) -> Option<Self> {
        Some(match bits {
            0 => Self::Varint,
            1 => Self::SixtyFourBit,
            2 => Self::LengthDelimited,
            3 => Self::StartGroup,
            4 => Self::EndGroup,
            5 => Self::ThirtyTwoBit,
            _ => return None,
        })
    }

    /// The wire type a field of this kind is written with (unpacked).
    fn of(kind: &Kind) -> Self {
        match kind {
            Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => Self::SixtyFourBit,
            Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => Self::ThirtyTwoBit,
            Kind::String | Kind::Bytes | Kind::Message(_) => Self::LengthDelimited,
            Kind::Int32
            | Kind::Int64
            | Kind::Uint32
            | Kind::Uint64
            | Kind::Sint32
            | Kind::Sint64
            | Kind::Bool
            | Kind::Enum(_) => Self::Varint,
        }
    }
}

fn encode_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn encode_key(number: u32, wire_type: WireType, out: &mut Vec<u8>) {
    encode_varint(u64::from(number) << 3 | wire_type as u64, out);
}

/// A varint of at most `max_len` bytes, the bits past the 64th dropped.
fn read_varint(buf: &mut &[u8], max_len: usize) -> Option<u64> {
    let mut value = 0u64;
    for (at, &byte) in buf.iter().take(max_len).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * at);
        if byte < 0x80 {
            *buf = &buf[at + 1..];
            return Some(value);
        }
    }
    None
}

/// A tag: at most five bytes, a 32-bit value, a field number above 0, a wire type below 6.
fn read_key(buf: &mut &[u8]) -> Option<(u32, WireType)> {
    let key = u32::try_from(read_varint(buf, 5)?).ok()?;
    let wire_type = WireType::from_low_bits(key & 7)?;
    let number = key >> 3;
    (number > 0).then_some((number, wire_type))
}

fn length_delimited<'a>(buf: &mut &'a [u8]) -> Option<&'a [u8]> {
    let len = read_varint(buf, 5)?;
    if len > i32::MAX as u64 || len > buf.len() as u64 {
        return None;
    }
    let (payload, rest) = buf.split_at(len as usize);
    *buf = rest;
    Some(payload)
}

fn advance(buf: &mut &[u8], len: usize) -> Option<()> {
    *buf = buf.get(len..)?;
    Some(())
}

/// Steps over one unknown field; a group must end with its own end tag, within the depth limit.
fn skip_unknown(wire_type: WireType, number: u32, buf: &mut &[u8], depth: u32) -> Option<()> {
    match wire_type {
        WireType::Varint => read_varint(buf, 10).map(drop),
        WireType::SixtyFourBit => advance(buf, 8),
        WireType::ThirtyTwoBit => advance(buf, 4),
        WireType::LengthDelimited => length_delimited(buf).map(drop),
        WireType::StartGroup => {
            if depth + 1 >= DEPTH_LIMIT {
                return None;
            }
            loop {
                let (inner, inner_type) = read_key(buf)?;
                if inner_type == WireType::EndGroup {
                    return (inner == number).then_some(());
                }
                skip_unknown(inner_type, inner, buf, depth + 1)?;
            }
        }
        WireType::EndGroup => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let summary = sniff(data);
    let (mut graph_ops, mut library_ops) = (Vec::new(), Vec::new());
    let scanned = scan_ops(data, |site| {
        if site.in_library {
            library_ops.push(site.op);
        } else {
            graph_ops.push(site.op);
        }
    });
    let new = VersionDef {
        producer: 2474,
        min_consumer: 3,
        bad_consumers: vec![7],
    };
    let rewritten = rewrite_graph_def_versions(data, &new);

    let Some((canonical, graph)) = tensorflow_parse(data) else {
        return;
    };
    let summary = summary.expect("TensorFlow reads it, so the sniffer must read it");
    assert_eq!(summary.versions, graph.versions.clone().unwrap_or_default());
    assert_eq!(summary.has_versions, graph.versions.is_some());
    assert_eq!(summary.nodes, graph.node.len());
    assert_eq!(
        summary.library_functions,
        graph.library.as_ref().map_or(0, |l| l.function.len())
    );
    scanned.expect("TensorFlow reads it, so the op scan must read it");
    // The scan reports ops in wire order, where a library may come before some nodes: the
    // graph's ops and the library's are each in order.
    let expected: Vec<&str> = graph.node.iter().map(|n| n.op.as_str()).collect();
    assert_eq!(graph_ops, expected);
    let expected: Vec<&str> = graph
        .library
        .iter()
        .flat_map(|l| &l.function)
        .flat_map(|f| &f.node_def)
        .map(|n| n.op.as_str())
        .collect();
    assert_eq!(library_ops, expected);
    let rewritten = rewritten.expect("a graph TensorFlow reads can be rewritten");
    let (rewritten, read_back) =
        tensorflow_parse(&rewritten).expect("TensorFlow reads the rewritten graph");
    assert_eq!(read_back.versions, Some(new));
    assert_eq!(without_versions(&rewritten), without_versions(&canonical));
});
