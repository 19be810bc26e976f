//! The seed's four playbooks for evolving GraphDefs, each walked end to end as a sequence of
//! releases of one imaginary project: every move passes the policy checker, the producers
//! refuse what they must no longer write, and each release's consumer loads or refuses the
//! graphs every other release wrote, as the playbook promises.
//!
//! Which ops a binary registers is not part of a `ReleaseVersioning` (the crate judges versions and
//! deprecations); the walks keep that set beside each release, and a consumer that does not
//! know an op refuses the graph as TensorFlow does ("Op type not registered").

use crate::common::graph;
use graphdef_versions::{
    Consumer, DeprecatedOp, Error, PolicyReport, PolicyRule, Producer, Refusal, Registry,
    ReleaseVersioning, Version, check_file, check_release_move, distinct_ops, sniff,
};
use prost::Message;

/// One released binary: its release facts, the ops it registers, and the bans its producer
/// applies only to graphs that use given ops.
#[derive(Clone, Debug)]
struct Binary {
    release: ReleaseVersioning,
    ops: Vec<&'static str>,
    bans_when_ops: Vec<(i32, Vec<&'static str>)>,
}

impl Binary {
    /// Release `number` with GraphDef version `current`, registering `ops`; min_producer and
    /// min_consumer 0, no deprecation, no ban.
    fn first(number: &str, current: i32, ops: &[&'static str]) -> Self {
        let mut release = ReleaseVersioning {
            number: number.parse().unwrap(),
            deprecations: Registry::empty(),
            banned_consumers: Vec::new(),
            ..ReleaseVersioning::tensorflow()
        };
        release.graph_def.current = Version::new(current);
        release.graph_def.min_producer = Version::new(0);
        release.graph_def.min_consumer = Version::new(0);
        Binary {
            release,
            ops: ops.to_vec(),
            bans_when_ops: Vec::new(),
        }
    }

    /// The next release: everything as in this one but the number and the GraphDef version.
    fn next(&self, number: &str, current: i32) -> Self {
        let mut next = self.clone();
        next.release.number = number.parse().unwrap();
        next.release.graph_def.current = Version::new(current);
        next
    }

    fn deprecate(mut self, op: &'static str, at: i32) -> Self {
        self.release
            .deprecations
            .register(DeprecatedOp::new(
                op,
                Version::new(at),
                format!("Use {op}V2"),
            ))
            .unwrap();
        self
    }

    /// The op is gone: no longer registered, its deprecation record dropped.
    fn remove(mut self, op: &str) -> Self {
        self.ops.retain(|name| *name != op);
        let mut kept = Registry::empty();
        for deprecated in self.release.deprecations.iter().filter(|d| d.name != op) {
            kept.register(deprecated.clone()).unwrap();
        }
        self.release.deprecations = kept;
        self
    }

    fn register(mut self, op: &'static str) -> Self {
        self.ops.push(op);
        self
    }

    fn producer(&self) -> Producer {
        let mut producer = Producer::new(self.release.graph_def)
            .with_deprecations(self.release.deprecations.clone());
        for banned in &self.release.banned_consumers {
            producer = producer.ban(*banned);
        }
        for (banned, ops) in &self.bans_when_ops {
            producer = producer.ban_when_ops(Version::new(*banned), ops.iter().copied());
        }
        producer
    }

    fn consumer(&self) -> Consumer {
        Consumer::from_constants(&self.release.graph_def, self.release.number.to_string())
    }

    /// A new graph using `ops`, written by this release's producer.
    fn write(&self, ops: &[&str]) -> Result<Vec<u8>, Error> {
        for op in ops {
            assert!(self.ops.contains(op), "{op} is not registered in {self:?}");
        }
        let mut new = graph(ops, &[], None);
        self.producer().stamp_graph(&mut new)?;
        Ok(new.encode_to_vec())
    }

    /// Loads a graph as this release's importer would: versions, then registered ops, then
    /// deprecations. `Ok` holds the deprecation warnings; `Err` the refusal's text.
    fn load(&self, bytes: &[u8]) -> Result<Vec<String>, String> {
        let versions = sniff(bytes).unwrap().versions;
        self.consumer()
            .check(&versions)
            .map_err(|error| error.to_string())?;
        for op in distinct_ops(bytes).unwrap() {
            if !self.ops.contains(&op) {
                return Err(format!("Op type not registered '{op}'"));
            }
        }
        let verdict = check_file(bytes, &self.consumer(), &self.release.deprecations).unwrap();
        if let Some(error) = verdict.first_error() {
            return Err(error.to_string());
        }
        Ok(verdict.graphs[0]
            .ops
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect())
    }
}

/// The policy's report on moving from `from` to `to`, which must allow it.
fn allowed(from: &Binary, to: &Binary) -> PolicyReport {
    let report = check_release_move(&from.release, &to.release);
    assert!(
        report.allowed(),
        "{} -> {}: {:?}",
        from.release.number,
        to.release.number,
        report.violations().collect::<Vec<_>>()
    );
    report
}

/// The rules the policy refuses on moving from `from` to `to`.
fn refused(from: &Binary, to: &Binary) -> Vec<PolicyRule> {
    check_release_move(&from.release, &to.release)
        .violations()
        .map(|finding| finding.rule)
        .collect()
}

/// A graph stamped by hand with `producer` that uses `ops`, as an old or careless writer
/// would make it.
fn hand_made(ops: &[&str], producer: i32) -> Vec<u8> {
    graph(ops, &[], Some(crate::common::versions(producer, 0, &[]))).encode_to_vec()
}

#[test]
fn removing_an_op() {
    let v1_0 = Binary::first("1.0.0", 10, &["Const", "Foo"]);
    let old_graph = v1_0.write(&["Const", "Foo"]).unwrap();
    assert_eq!(v1_0.load(&old_graph), Ok(vec![]));

    // Step 1 (fix the producer scripts) happens outside TensorFlow. Step 2: bump the version
    // and ban Foo for graphs at the new version and above.
    let v1_1 = v1_0.next("1.1.0", 11).deprecate("Foo", 11);
    let report = allowed(&v1_0, &v1_1);
    assert_eq!(report.findings[0].rule, PolicyRule::DeprecationVersion);
    // TensorFlow stops producing graphs with Foo...
    assert_eq!(
        v1_1.write(&["Const", "Foo"]).unwrap_err().to_string(),
        "Op Foo is not available in GraphDef version 11. It has been removed in version 11. Use FooV2."
    );
    let new_graph = v1_1.write(&["Const"]).unwrap();
    // ... refuses a graph at 11 that uses it anyway ...
    assert!(matches!(
        v1_1.load(&hand_made(&["Foo"], 11)),
        Err(text) if text.starts_with("Op Foo is not available in GraphDef version 11")
    ));
    // ... and still runs the old graph, with a warning. Old and new binaries read both graphs.
    assert_eq!(
        v1_1.load(&old_graph),
        Ok(vec![
            "Op Foo is deprecated. It will cease to work in GraphDef version 11. Use FooV2."
                .to_string()
        ])
    );
    assert!(v1_0.load(&new_graph).is_ok());

    // Step 3: wait for a major release. Neither raising min_producer nor dropping Foo may
    // happen in a minor one.
    let v1_2 = v1_1.next("1.2.0", 12);
    allowed(&v1_1, &v1_2);
    let mut too_early = v1_2.next("1.3.0", 13).remove("Foo");
    too_early.release.graph_def.min_producer = Version::new(11);
    assert_eq!(refused(&v1_2, &too_early), [PolicyRule::MinProducerAtMajor]);
    let mut min_producer_short = v1_2.next("2.0.0", 13).remove("Foo");
    min_producer_short.release.graph_def.min_producer = Version::new(10);
    assert_eq!(
        refused(&v1_2, &min_producer_short),
        [PolicyRule::DeprecationKept]
    );
    assert!(v1_2.load(&old_graph).is_ok());

    // Step 4: at the major release, min_producer rises to 11 and Foo goes entirely.
    let mut v2_0 = v1_2.next("2.0.0", 13).remove("Foo");
    v2_0.release.graph_def.min_producer = Version::new(11);
    let report = allowed(&v1_2, &v2_0);
    let rules: Vec<PolicyRule> = report.findings.iter().map(|f| f.rule).collect();
    assert_eq!(
        rules,
        [PolicyRule::MinProducerAtMajor, PolicyRule::DeprecationKept]
    );
    assert_eq!(
        v2_0.load(&old_graph),
        Err("GraphDef producer version 10 below min producer 11 supported by TensorFlow 2.0.0.  Please regenerate your graph.".to_string())
    );
    // Graphs written since step 2 never use Foo, and still load.
    assert!(v2_0.load(&new_graph).is_ok());
    assert!(v2_0.load(&v1_2.write(&["Const"]).unwrap()).is_ok());
}

#[test]
fn changing_an_op_through_a_v2_op_and_an_alias() {
    let v1_0 = Binary::first("1.0.0", 10, &["Const", "Foo"]);
    let old_foo = v1_0.write(&["Const", "Foo"]).unwrap();

    // Step 1: add FooV2 with a version bump (new consumer functionality), and switch the
    // wrappers to it. min_consumer stays: graphs without FooV2 still load in 1.0.
    let v1_1 = v1_0.next("1.1.0", 11).register("FooV2");
    allowed(&v1_0, &v1_1);
    let with_v2 = v1_1.write(&["Const", "FooV2"]).unwrap();
    assert!(v1_1.load(&with_v2).is_ok());
    assert!(v1_0.load(&v1_1.write(&["Const"]).unwrap()).is_ok());
    // A consumer from before FooV2 cannot run it: the weeks of forward compatibility.
    assert_eq!(
        v1_0.load(&with_v2),
        Err("Op type not registered 'FooV2'".to_string())
    );

    // Step 2: remove the old op, by the removal playbook: deprecate, then drop it at a major
    // release that raises min_producer.
    let v1_2 = v1_1.next("1.2.0", 12).deprecate("Foo", 12);
    allowed(&v1_1, &v1_2);
    assert!(v1_2.write(&["Foo"]).is_err());
    let mut v2_0 = v1_2.next("2.0.0", 13).remove("Foo");
    v2_0.release.graph_def.min_producer = Version::new(12);
    allowed(&v1_2, &v2_0);
    assert!(v2_0.load(&old_foo).is_err());
    assert!(
        v2_0.load(&with_v2).is_err(),
        "written at 11, below min_producer"
    );
    assert!(v2_0.load(&v1_2.write(&["FooV2"]).unwrap()).is_ok());

    // Step 3: raise min_consumer past every consumer that still has the old Foo (up to 12),
    // and bring Foo back as an alias of FooV2.
    let mut v2_1 = v2_0.next("2.1.0", 14).register("Foo");
    v2_1.release.graph_def.min_consumer = Version::new(13);
    let report = allowed(&v2_0, &v2_1);
    assert_eq!(
        report.findings[0].rule,
        PolicyRule::MinConsumerWithinPatchLine
    );
    let new_foo = v2_1.write(&["Const", "Foo"]).unwrap();
    assert_eq!(sniff(&new_foo).unwrap().versions.min_consumer, 13);
    assert!(v2_1.load(&new_foo).is_ok());
    // The consumers whose Foo means the old op never read a graph with the new Foo.
    assert_eq!(
        v1_2.load(&new_foo),
        Err("GraphDef min consumer version 13 above current version 12 for TensorFlow 1.2.0.  Please upgrade TensorFlow.".to_string())
    );
    assert!(v1_0.load(&new_foo).is_err());
    // Raising min_consumer inside the 2.1 patch line instead would be refused.
    let mut in_patch_line = v2_1.next("2.1.1", 14);
    in_patch_line.release.graph_def.min_consumer = Version::new(14);
    assert_eq!(
        refused(&v2_1, &in_patch_line),
        [PolicyRule::MinConsumerWithinPatchLine]
    );

    // Step 4: remove FooV2 by the removal playbook.
    let v2_2 = v2_1.next("2.2.0", 15).deprecate("FooV2", 15);
    allowed(&v2_1, &v2_2);
    assert!(v2_2.write(&["FooV2"]).is_err());
    let foo_only = v2_2.write(&["Foo"]).unwrap();
    let mut v3_0 = v2_2.next("3.0.0", 16).remove("FooV2");
    v3_0.release.graph_def.min_producer = Version::new(15);
    allowed(&v2_2, &v3_0);
    assert!(v3_0.load(&foo_only).is_ok());
    assert!(
        v3_0.load(&new_foo).is_err(),
        "written at 14, below min_producer"
    );
}

#[test]
fn adding_an_op() {
    let v1_0 = Binary::first("1.0.0", 10, &["Const"]);
    let old_graph = v1_0.write(&["Const"]).unwrap();

    // Add Bar to consumers and producers at once; no GraphDef version changes.
    let v1_1 = v1_0.next("1.1.0", 10).register("Bar");
    let report = allowed(&v1_0, &v1_1);
    assert!(report.findings.is_empty(), "{report:?}");
    assert_eq!(
        v1_1.producer().stamp(),
        v1_0.producer().stamp(),
        "stamps do not change"
    );
    // Backward compatible: old graphs load.
    assert!(v1_1.load(&old_graph).is_ok());
    // Existing scripts do not use Bar, so what they write still loads in 1.0.
    assert!(v1_0.load(&v1_1.write(&["Const"]).unwrap()).is_ok());
    // Only a graph that uses Bar needs 1.1.
    let with_bar = v1_1.write(&["Const", "Bar"]).unwrap();
    assert!(v1_1.load(&with_bar).is_ok());
    assert_eq!(
        v1_0.load(&with_bar),
        Err("Op type not registered 'Bar'".to_string())
    );
}

#[test]
fn banning_a_consumer() {
    let v1_0 = Binary::first("1.0.0", 10, &["Const", "Conv"]);
    let plain = v1_0.write(&["Const", "Conv"]).unwrap();

    // Consumer 10 turns out to run Conv wrongly. Step 1: bump the version and list 10 in
    // bad_consumers of all new graphs...
    let mut v1_0_1 = v1_0.next("1.0.1", 11);
    v1_0_1.release.banned_consumers = vec![Version::new(10)];
    let report = allowed(&v1_0, &v1_0_1);
    assert_eq!(report.findings[0].rule, PolicyRule::ConsumerBan);
    let new_graph = v1_0_1.write(&["Const"]).unwrap();
    assert_eq!(sniff(&new_graph).unwrap().versions.bad_consumers, [10]);
    assert_eq!(
        v1_0.load(&new_graph),
        Err("GraphDef disallows consumer version 10.  Please upgrade TensorFlow: this version is likely buggy.".to_string())
    );
    assert!(v1_0_1.load(&new_graph).is_ok());
    // Data written before the ban still loads in 10: only new data carries it.
    assert!(v1_0.load(&plain).is_ok());

    // ... which the policy refuses without a bump.
    let mut unbumped = v1_0.next("1.0.1", 10);
    unbumped.release.banned_consumers = vec![Version::new(10)];
    assert_eq!(refused(&v1_0, &unbumped), [PolicyRule::ConsumerBan]);
    assert!(
        check_release_move(&v1_0.release, &unbumped.release).findings[0]
            .reason
            .contains("bump it")
    );

    // Or, where possible, only for graphs that contain the op.
    let mut narrow = v1_0.next("1.0.1", 11);
    narrow.bans_when_ops = vec![(10, vec!["Conv"])];
    allowed(&v1_0, &narrow);
    assert!(v1_0.load(&narrow.write(&["Const"]).unwrap()).is_ok());
    assert!(matches!(
        narrow
            .consumer()
            .check(&sniff(&narrow.write(&["Conv"]).unwrap()).unwrap().versions),
        Ok(())
    ));
    let conv = narrow.write(&["Const", "Conv"]).unwrap();
    assert!(matches!(
        v1_0.consumer().check(&sniff(&conv).unwrap().versions),
        Err(Error::Refused(Refusal::BadConsumer { .. }))
    ));

    // Step 2 (push the bad consumers out) is outside TensorFlow; the ban stays in every later
    // release, and lifting it is refused.
    let v1_1 = v1_0_1.next("1.1.0", 12);
    allowed(&v1_0_1, &v1_1);
    assert!(v1_0.load(&v1_1.write(&["Const"]).unwrap()).is_err());
    let mut lifted = v1_1.next("1.2.0", 13);
    lifted.release.banned_consumers.clear();
    assert_eq!(refused(&v1_1, &lifted), [PolicyRule::ConsumerBan]);
}
