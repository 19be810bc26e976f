//! The compatibility policy for moving from one release's constants to the next.

use graphdef_versions::{
    DeprecatedOp, Error, PolicyReport, PolicyRule, ReleaseNumber, ReleaseVersioning, Version,
    check_release_move,
};

fn tf(number: &str) -> ReleaseVersioning {
    ReleaseVersioning {
        number: number.parse().unwrap(),
        ..ReleaseVersioning::tensorflow()
    }
}

fn bump(mut release: ReleaseVersioning, number: &str, graph_def_current: i32) -> ReleaseVersioning {
    release.number = number.parse().unwrap();
    release.graph_def.current = Version::new(graph_def_current);
    release
}

fn rules(report: &PolicyReport) -> Vec<(PolicyRule, bool)> {
    report
        .findings
        .iter()
        .map(|f| (f.rule, f.allowed))
        .collect()
}

#[test]
fn an_ordinary_minor_release_is_allowed() {
    let from = tf("2.21.0");
    let to = bump(from.clone(), "2.22.0", 2530);
    let report = check_release_move(&from, &to);
    assert!(report.allowed(), "{report:?}");
    assert!(report.findings.is_empty());
}

#[test]
fn min_producer_rises_only_at_a_major_release() {
    let from = tf("2.21.0");
    let mut minor = bump(from.clone(), "2.22.0", 2530);
    minor.graph_def.min_producer = Version::new(21);
    let report = check_release_move(&from, &minor);
    assert_eq!(rules(&report), [(PolicyRule::MinProducerAtMajor, false)]);
    assert!(
        report
            .violations()
            .next()
            .unwrap()
            .reason
            .contains("not a major release")
    );

    let mut major = bump(from.clone(), "3.0.0", 2600);
    major.graph_def.min_producer = Version::new(21);
    let report = check_release_move(&from, &major);
    assert!(report.allowed());
    assert_eq!(rules(&report), [(PolicyRule::MinProducerAtMajor, true)]);

    // The checkpoint scheme is judged on its own.
    let mut checkpoint = bump(from.clone(), "2.22.0", 2530);
    checkpoint.checkpoint.min_producer = Version::new(1);
    let report = check_release_move(&from, &checkpoint);
    assert_eq!(
        report.violations().next().unwrap().scheme,
        Some(graphdef_versions::Scheme::Checkpoint)
    );
}

#[test]
fn min_consumer_does_not_rise_within_a_patch_line() {
    let from = tf("2.21.0");
    let mut patch = bump(from.clone(), "2.21.1", 2474);
    patch.graph_def.min_consumer = Version::new(100);
    let report = check_release_move(&from, &patch);
    assert_eq!(
        rules(&report),
        [(PolicyRule::MinConsumerWithinPatchLine, false)]
    );
    assert!(
        report.findings[0]
            .reason
            .contains("within the 2.21 patch line")
    );

    let mut minor = bump(from.clone(), "2.22.0", 2530);
    minor.graph_def.min_consumer = Version::new(100);
    assert!(check_release_move(&from, &minor).allowed());
}

#[test]
fn versions_go_forward_and_releases_read_their_own_data() {
    let from = tf("2.21.0");
    let back = bump(from.clone(), "2.22.0", 2400);
    assert_eq!(
        rules(&check_release_move(&from, &back)),
        [(PolicyRule::CurrentNeverDecreases, false)]
    );
    let same = tf("2.21.0");
    assert_eq!(
        rules(&check_release_move(&from, &same)),
        [(PolicyRule::ReleaseOrder, false)]
    );
    let mut unreadable = bump(from.clone(), "3.0.0", 2600);
    unreadable.graph_def.min_producer = Version::new(2700);
    let report = check_release_move(&from, &unreadable);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.rule == PolicyRule::ReadsOwnData && !f.allowed)
    );
}

#[test]
fn deprecations_need_a_version_above_every_earlier_one() {
    let from = tf("2.21.0");
    let mut good = bump(from.clone(), "2.22.0", 2530);
    good.deprecations
        .register(DeprecatedOp::new(
            "Conv2DLegacy",
            Version::new(2500),
            "Use Conv2D",
        ))
        .unwrap();
    let report = check_release_move(&from, &good);
    assert!(report.allowed(), "{report:?}");
    assert_eq!(rules(&report), [(PolicyRule::DeprecationVersion, true)]);

    // Not above the latest earlier deprecation (29, StatefulStandardNormal).
    let mut low = bump(from.clone(), "2.22.0", 2530);
    low.deprecations
        .register(DeprecatedOp::new("Ancient", Version::new(20), "no"))
        .unwrap();
    let report = check_release_move(&from, &low);
    assert_eq!(rules(&report), [(PolicyRule::DeprecationVersion, false)]);
    assert!(
        report.findings[0]
            .reason
            .contains("latest earlier deprecation (29)")
    );

    // Above 29 but at a version the old release already writes: its graphs would break.
    let mut retroactive = bump(from.clone(), "2.22.0", 2530);
    retroactive
        .deprecations
        .register(DeprecatedOp::new("Recent", Version::new(2400), "no"))
        .unwrap();
    let report = check_release_move(&from, &retroactive);
    assert!(!report.allowed());
    assert!(
        report.findings[0]
            .reason
            .contains("would break graphs 2.21.0 already writes")
    );

    // Scheduled beyond the new release's version: allowed, takes effect later.
    let mut scheduled = bump(from.clone(), "2.22.0", 2530);
    scheduled
        .deprecations
        .register(DeprecatedOp::new("Soon", Version::new(2600), "no"))
        .unwrap();
    let report = check_release_move(&from, &scheduled);
    assert!(report.allowed());
    assert!(report.findings[0].reason.contains("takes effect once"));
}

#[test]
fn released_deprecations_are_never_changed_or_withdrawn() {
    let from = tf("2.21.0");
    let mut to = bump(from.clone(), "2.22.0", 2530);
    let mut moved = graphdef_versions::Registry::empty();
    for op in to.deprecations.iter() {
        if op.name == "TopK" {
            moved
                .register(DeprecatedOp::new(
                    "TopK",
                    Version::new(8),
                    op.explanation.clone(),
                ))
                .unwrap();
        } else if op.name != "Old" {
            moved.register(op.clone()).unwrap();
        }
    }
    to.deprecations = moved;
    let report = check_release_move(&from, &to);
    let violations: Vec<&str> = report.violations().map(|f| f.reason.as_str()).collect();
    assert_eq!(violations.len(), 2, "{violations:?}");
    assert!(violations[0].contains("TopK moves from version 7 to 8"));
    assert!(violations[1].contains("Old (version 8) is withdrawn while min_producer is 0"));
}

#[test]
fn a_deprecation_may_go_once_min_producer_reaches_it() {
    let from = tf("2.21.0");
    let without_old = |mut release: ReleaseVersioning| {
        let mut kept = graphdef_versions::Registry::empty();
        for op in release.deprecations.iter().filter(|op| op.name != "Old") {
            kept.register(op.clone()).unwrap();
        }
        release.deprecations = kept;
        release
    };
    // Old was deprecated at 8. min_producer 7 still reads graphs that may use it.
    let mut early = without_old(bump(from.clone(), "3.0.0", 2600));
    early.graph_def.min_producer = Version::new(7);
    let report = check_release_move(&from, &early);
    let violations: Vec<&str> = report.violations().map(|f| f.reason.as_str()).collect();
    assert_eq!(violations.len(), 1, "{report:?}");
    assert!(
        violations[0].contains("graphs from 7 to 7 may still use it"),
        "{violations:?}"
    );
    // min_producer 8: every graph still read is at 8 or later, where Old was refused.
    let mut major = without_old(bump(from.clone(), "3.0.0", 2600));
    major.graph_def.min_producer = Version::new(8);
    let report = check_release_move(&from, &major);
    assert!(report.allowed(), "{report:?}");
    assert_eq!(
        rules(&report),
        [
            (PolicyRule::MinProducerAtMajor, true),
            (PolicyRule::DeprecationKept, true)
        ]
    );
    assert!(
        report.findings[1]
            .reason
            .contains("Old (deprecated at version 8) is removed entirely")
    );
    // Once min_producer is past it, a later minor release may drop it too.
    let mut raised = bump(from.clone(), "3.0.0", 2600);
    raised.graph_def.min_producer = Version::new(10);
    let later = without_old(bump(raised.clone(), "3.1.0", 2650));
    assert!(check_release_move(&raised, &later).allowed());
}

#[test]
fn banning_a_consumer_adds_it_and_bans_stay() {
    let from = tf("2.21.0");
    let mut to = bump(from.clone(), "2.21.1", 2475);
    to.banned_consumers = vec![Version::new(2470)];
    let report = check_release_move(&from, &to);
    assert!(report.allowed());
    assert!(
        report.findings[0]
            .reason
            .contains("new data lists it in bad_consumers")
    );

    // A ban without a version bump: refused.
    let mut unbumped = bump(from.clone(), "2.21.1", 2474);
    unbumped.banned_consumers = vec![Version::new(2470)];
    let report = check_release_move(&from, &unbumped);
    assert_eq!(rules(&report), [(PolicyRule::ConsumerBan, false)]);
    assert!(
        report.findings[0]
            .reason
            .contains("the GraphDef version stays at 2474: bump it"),
        "{report:?}"
    );

    let mut future = bump(from.clone(), "2.21.1", 2490);
    future.banned_consumers = vec![Version::new(2480)];
    assert!(!check_release_move(&from, &future).allowed());

    // Keeping a ban needs no bump.
    let lifted = bump(to.clone(), "2.21.2", 2475);
    assert!(check_release_move(&to, &lifted).allowed());
    let mut lifted = lifted;
    lifted.banned_consumers.clear();
    let report = check_release_move(&to, &lifted);
    assert_eq!(rules(&report), [(PolicyRule::ConsumerBan, false)]);
}

#[test]
fn release_numbers_parse_strictly() {
    assert_eq!(
        "2.21.0".parse::<ReleaseNumber>().unwrap(),
        ReleaseNumber::new(2, 21, 0)
    );
    assert_eq!(
        "2.21.0-rc1".parse::<ReleaseNumber>().unwrap(),
        ReleaseNumber::new(2, 21, 0)
    );
    assert!(ReleaseNumber::new(2, 9, 0) < ReleaseNumber::new(2, 10, 0));
    assert_eq!(ReleaseNumber::new(3, 0, 1).to_string(), "3.0.1");
    for bad in [
        "2.21",
        "2.21.0.1",
        "v2.21.0",
        "2..0",
        "a.b.c",
        "",
        "99999999999.0.0",
    ] {
        let error = bad.parse::<ReleaseNumber>().unwrap_err();
        assert!(matches!(error, Error::InvalidRelease { .. }), "{bad}");
    }
}
