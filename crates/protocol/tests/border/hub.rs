//! Hub lines against hostile and valid input:
//!
//! * the tokenizer and both message parsers never panic on arbitrary strings, strings over the
//!   protocol's alphabet or mutations of valid lines; an error is a `HubError` with a message;
//! * every command and response prints as a line that reads back as the same message (values
//!   with `"` or control characters, which the protocol cannot carry, come back with `'` and
//!   blanks, as the printer documents);
//! * positions and moves in Hub notation: arbitrary and mutated texts never panic, and whatever
//!   is accepted is a legal position or move that writes back as the same text;
//! * the engine's session, driven by random conversations (valid, mutated and nonsense lines,
//!   searches answered at once), never panics and only says valid lines.

use std::sync::{Arc, OnceLock};

use damspel_protocol::hub::parse::is_name;
use damspel_protocol::hub::{
    parse_move, parse_position, tokenize, write_move, write_position, Action, ClockLevel, Command,
    EngineId, GoMode, HubError, Identity, InfoLine, Level, Limits, ParamDecl, ParamKind, Params,
    Response, Session, Setup, SetupStep, MAX_DEPTH, MAX_LINE_LEN,
};
use damspel_rules::{on_rules, with_rules, AnyRules, Bits, Catalogue, Position, Rules};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::{config, Rng};

fn check_error(text: &str, e: &HubError) -> Result<(), TestCaseError> {
    prop_assert!(!e.message.trim().is_empty(), "{:?}: empty message", text);
    // Quoted values are cut: an error never echoes a whole long line.
    prop_assert!(
        e.message.len() <= 300,
        "{} bytes: {}",
        e.message.len(),
        e.message
    );
    Ok(())
}

/// Tokenizes and parses `text` both ways: never panics, errors have messages, and a tokenized
/// line is made of names.
fn read_line(text: &str) -> Result<(), TestCaseError> {
    match tokenize(text) {
        Err(e) => {
            check_error(text, &e)?;
            prop_assert!(Command::parse(text).is_err());
            prop_assert!(Response::parse(text).is_err());
        }
        Ok(line) => {
            prop_assert!(is_name(&line.command), "{:?}", line);
            prop_assert!(line.args.iter().all(|a| is_name(&a.name)), "{:?}", line);
            if let Err(e) = Command::parse(text) {
                check_error(text, &e)?;
            }
            if let Err(e) = Response::parse(text) {
                check_error(text, &e)?;
            }
        }
    }
    Ok(())
}

const LINES: [&str; 24] = [
    "hub",
    "set-param name=variant value=killer",
    "set-param name=hash value=65536",
    "init",
    "new-game",
    "pos pos=BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee moves=\"38-15 5-41 48-26\"",
    "pos start moves=\"32-28 19-23\"",
    "level depth=12 nodes=100000 move-time=1.5",
    "level moves=9 time=291.587 inc=1",
    "level infinite",
    "go think",
    "go ponder",
    "go analyze",
    "stop",
    "ping",
    "ponder-hit",
    "quit",
    "id name=Scan version=3.0 author=\"Fabien Letouzey\" country=France",
    "param name=variant value=normal type=enum values=\"normal killer bt\"",
    "param name=threads value=1 type=int min=1 max=16",
    "info depth=21 mean-depth=20.8 score=-0.01 nodes=31261613 time=3.906 nps=8.0 pv=\"32-28 17-22\"",
    "done move=32-28 ponder=17-22",
    "error message=\"bad position\"",
    "pong",
];

/// Text-level mutations of a valid line.
fn mutate(text: &str, rng: &mut Rng) -> String {
    const INSERTS: [&str; 24] = [
        "=",
        "\"",
        " ",
        "  ",
        "\t",
        "\r",
        "\n",
        "\u{0}",
        "\u{1}",
        "\u{7f}",
        "é",
        "\u{3000}",
        "-",
        "-1",
        "1e99",
        "NaN",
        "inf",
        "99999999999999999999",
        "=\"",
        "\"\"",
        "==",
        "moves=",
        "pos=",
        "x",
    ];
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = bounds[rng.below(bounds.len())];
        match rng.below(5) {
            0 => s.truncate(at),
            1 | 2 => s.insert_str(at, rng.pick(&INSERTS)),
            3 => {
                if at < s.len() {
                    s.remove(at);
                }
            }
            _ => {
                let other = bounds[rng.below(bounds.len())];
                let (a, b) = (at.min(other), at.max(other));
                let slice = s[a..b].to_string();
                s.insert_str(b, &slice);
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        read_line(&text)?;
    }

    #[test]
    fn hub_alphabet_strings(text in "[a-z0-9= \"\t.\\-]{0,60}") {
        read_line(&text)?;
    }

    #[test]
    fn mutated_lines(which: prop::sample::Index, seed: u64) {
        let mut rng = Rng(seed);
        let line = which.get(&LINES);
        for _ in 0..8 {
            read_line(&mutate(line, &mut rng))?;
        }
    }
}

#[test]
fn the_protocol_examples_read() {
    for line in LINES {
        let command = Command::parse(line);
        let response = Response::parse(line);
        assert!(command.is_ok() && response.is_ok(), "{line}");
        // Known lines are known to one side.
        assert!(
            !matches!(command, Ok(Command::Unknown(_)))
                || !matches!(response, Ok(Response::Unknown(_))),
            "{line}"
        );
    }
}

/// Errors quote at most a short piece of a long value or name.
#[test]
fn errors_are_short() {
    let long = "9".repeat(100_000);
    for line in [
        format!("level depth={long}x"),
        format!("level {long}="),
        format!("level {long}=\"open"),
        format!("level move-time={long}x"),
    ] {
        let e = Command::parse(&line).unwrap_err();
        assert!(e.message.len() < 200, "{}", e.message.len());
        assert!(e.message.contains("999..."), "{}", e.message);
    }
}

/// A line longer than `MAX_LINE_LEN` is refused before it is scanned.
#[test]
fn lines_are_bounded() {
    let long = format!(
        "pos start moves=\"{}\"",
        "32-28 28-32 ".repeat(MAX_LINE_LEN / 12 + 1)
    );
    let e = tokenize(&long).unwrap_err();
    assert!(e.message.contains("at most 1048576"), "{e}");
    assert!(Command::parse(&long).is_err());
    let fits = format!(
        "pos start moves=\"{}\"",
        "32-28 28-32 ".repeat(MAX_LINE_LEN / 12 - 2)
    );
    assert!(fits.len() <= MAX_LINE_LEN);
    assert!(matches!(Command::parse(&fits), Ok(Command::Pos { .. })));
}

// ---------------------------------------------------------------------------------------------
// Round trips of typed messages.

/// What a value becomes on the wire: the protocol cannot carry `"` or control characters.
fn wire(value: &str) -> String {
    value
        .chars()
        .map(|c| match c {
            '"' => '\'',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_.:/+-]{1,12}",
        "[a-z =\"\t]{0,12}",
        any::<String>(),
    ]
}

fn token() -> impl Strategy<Value = String> {
    "[a-z0-9x:-]{1,10}"
}

fn decimals(d: u32, max: u64, signed: bool) -> impl Strategy<Value = f64> {
    let scale = 10f64.powi(d as i32);
    (0..=max, any::<bool>()).prop_map(move |(k, neg)| {
        let x = k as f64 / scale;
        if signed && neg {
            -x
        } else {
            x
        }
    })
}

fn seconds() -> impl Strategy<Value = f64> {
    decimals(3, 100_000_000, false)
}

fn level() -> impl Strategy<Value = Level> {
    (
        // The ranges a level's numbers must be in (the protocol reference's `level`; 0 asks
        // for no search, 64 is the deepest).
        proptest::option::of(1..=MAX_DEPTH),
        proptest::option::of(1..=u64::MAX),
        proptest::option::of(seconds()),
        proptest::option::of((proptest::option::of(1..=u32::MAX), seconds(), seconds())),
        any::<bool>(),
    )
        .prop_map(|(depth, nodes, move_time, clock, infinite)| Level {
            depth,
            nodes,
            move_time,
            clock: clock.map(|(moves, time, inc)| ClockLevel { moves, time, inc }),
            infinite,
        })
}

const COMMANDS: [&str; 12] = [
    "hub",
    "set-param",
    "init",
    "new-game",
    "pos",
    "level",
    "go",
    "stop",
    "ping",
    "ponder-hit",
    "quit",
    "",
];

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        Just(Command::Hub),
        (any_text(), any_text())
            .prop_filter("a name", |(n, _)| !n.is_empty())
            .prop_map(|(name, value)| Command::SetParam { name, value }),
        Just(Command::Init),
        Just(Command::NewGame),
        (
            proptest::option::of(any_text().prop_filter("a position", |p| !p.is_empty())),
            proptest::collection::vec(token(), 0..12)
        )
            .prop_map(|(pos, moves)| Command::Pos { pos, moves }),
        level().prop_map(Command::Level),
        prop_oneof![
            Just(GoMode::Think),
            Just(GoMode::Ponder),
            Just(GoMode::Analyze)
        ]
        .prop_map(Command::Go),
        Just(Command::Stop),
        Just(Command::Ping),
        Just(Command::PonderHit),
        Just(Command::Quit),
        "[a-z][a-z0-9-]{0,10}"
            .prop_filter("unknown", |c| !COMMANDS.contains(&c.as_str()))
            .prop_map(Command::Unknown),
    ]
}

/// The command as it reads back after printing.
fn on_the_wire(command: &Command) -> Command {
    match command {
        Command::SetParam { name, value } => Command::SetParam {
            name: wire(name),
            value: wire(value),
        },
        Command::Pos { pos, moves } => Command::Pos {
            pos: pos.as_deref().map(wire),
            moves: moves.clone(),
        },
        other => other.clone(),
    }
}

const TYPES: [&str; 5] = ["bool", "int", "real", "string", "enum"];

fn param_kind() -> impl Strategy<Value = ParamKind> {
    let finite = any::<f64>().prop_filter("finite", |x| x.is_finite());
    prop_oneof![
        Just(ParamKind::Bool),
        (any::<i64>(), any::<i64>()).prop_map(|(min, max)| ParamKind::Int { min, max }),
        (finite.clone(), finite).prop_map(|(min, max)| ParamKind::Real { min, max }),
        Just(ParamKind::String),
        proptest::collection::vec(token(), 0..6).prop_map(|values| ParamKind::Enum { values }),
        "[a-z]{1,8}"
            .prop_filter("unknown", |t| !TYPES.contains(&t.as_str()))
            .prop_map(ParamKind::Other),
    ]
}

fn response() -> impl Strategy<Value = Response> {
    prop_oneof![
        (any_text(), any_text(), any_text(), any_text()).prop_map(
            |(name, version, author, country)| Response::Id(EngineId {
                name,
                version,
                author,
                country
            })
        ),
        (any_text(), any_text(), param_kind())
            .prop_map(|(name, value, kind)| Response::Param(ParamDecl { name, value, kind })),
        Just(Response::Wait),
        Just(Response::Ready),
        (
            proptest::option::of(any::<u32>()),
            proptest::option::of(decimals(1, 10_000, false)),
            proptest::option::of(decimals(2, 1_000_000, true)),
            proptest::option::of(any::<u64>()),
            proptest::option::of(seconds()),
            proptest::option::of(decimals(2, 100_000, false)),
            proptest::collection::vec(token(), 0..10),
        )
            .prop_map(|(depth, mean_depth, score, nodes, time, nps, pv)| {
                Response::Info(InfoLine {
                    depth,
                    mean_depth,
                    score,
                    nodes,
                    time,
                    nps,
                    pv,
                })
            }),
        (proptest::option::of(token()), proptest::option::of(token())).prop_map(|(mv, ponder)| {
            Response::Done {
                ponder: mv.as_ref().and(ponder),
                mv,
            }
        }),
        Just(Response::Pong),
        any_text().prop_map(Response::Error),
        "[a-z][a-z0-9-]{0,10}"
            .prop_filter("unknown", |c| {
                ![
                    "id", "param", "wait", "ready", "info", "done", "pong", "error",
                ]
                .contains(&c.as_str())
            })
            .prop_map(Response::Unknown),
    ]
}

fn response_on_the_wire(response: &Response) -> Response {
    match response {
        Response::Id(id) => Response::Id(EngineId {
            name: wire(&id.name),
            version: wire(&id.version),
            author: wire(&id.author),
            country: wire(&id.country),
        }),
        Response::Param(p) => Response::Param(ParamDecl {
            name: wire(&p.name),
            value: wire(&p.value),
            kind: p.kind.clone(),
        }),
        Response::Error(message) => Response::Error(wire(message)),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn commands_read_back(command in command()) {
        let line = command.to_string();
        prop_assert!(!line.contains(['\n', '\r']), "{:?}", line);
        let read = Command::parse(&line).map_err(|e| TestCaseError::fail(format!("{line:?}: {e}")))?;
        prop_assert_eq!(read, on_the_wire(&command), "{:?}", line);
    }

    #[test]
    fn responses_read_back(response in response()) {
        let line = response.to_string();
        prop_assert!(!line.contains(['\n', '\r']), "{:?}", line);
        let read = Response::parse(&line).map_err(|e| TestCaseError::fail(format!("{line:?}: {e}")))?;
        prop_assert_eq!(read, response_on_the_wire(&response), "{:?}", line);
    }
}

// ---------------------------------------------------------------------------------------------
// Positions and moves in Hub notation.

fn all_rules() -> &'static [AnyRules] {
    static RULES: OnceLock<Vec<AnyRules>> = OnceLock::new();
    RULES.get_or_init(|| {
        Catalogue::builtin()
            .variants()
            .expect("every variant checks")
            .into_iter()
            .map(|v| with_rules!(v, |rules| AnyRules::from(rules)))
            .collect()
    })
}

fn some_position<B: Bits>(rules: &Rules<B>, rng: &mut Rng, plies: usize) -> Position<B> {
    let mut pos = Position::start(rules);
    for _ in 0..plies {
        let moves = rules.moves(&pos);
        if moves.is_empty() {
            break;
        }
        pos = pos.play(&moves[rng.below(moves.len())]);
    }
    pos
}

/// Position and move texts: never panic; what is accepted is legal and writes back the same.
fn board_texts<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    position: &str,
    mv: &str,
) -> Result<(), TestCaseError> {
    let g = rules.variant();
    match parse_position(rules, position) {
        Ok(read) => prop_assert_eq!(write_position(g, &read), position),
        Err(e) => prop_assert!(!e.0.trim().is_empty()),
    }
    match parse_move(rules, pos, mv) {
        Ok(read) => {
            prop_assert!(
                rules.moves(pos).contains(&read),
                "{:?} read as an illegal move",
                mv
            );
            // Written in full, it reads back as itself.
            prop_assert_eq!(parse_move(rules, pos, &write_move(g, &read)), Ok(read));
        }
        Err(e) => prop_assert!(!e.0.trim().is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn arbitrary_board_texts(which: prop::sample::Index, seed: u64, plies in 0usize..40, position in any::<String>(), mv in any::<String>()) {
        on_rules!(which.get(all_rules()), |rules| {
            let pos = some_position(rules, &mut Rng(seed), plies);
            board_texts(rules, &pos, &position, &mv)
        })?;
    }

    #[test]
    fn mutated_board_texts(which: prop::sample::Index, seed: u64, plies in 0usize..60) {
        on_rules!(which.get(all_rules()), |rules| {
            let mut rng = Rng(seed);
            let pos = some_position(rules, &mut rng, plies);
            let g = rules.variant();
            let position = write_position(g, &pos);
            let legal = rules.moves(&pos);
            let mv = legal.get(rng.below(legal.len().max(1))).map(|m| write_move(g, m)).unwrap_or_default();
            for _ in 0..6 {
                board_texts(rules, &pos, &mutate(&position, &mut rng), &mutate(&mv, &mut rng))?;
            }
            Ok::<(), TestCaseError>(())
        })?;
    }
}

// ---------------------------------------------------------------------------------------------
// The engine's session under random conversations.

fn identity() -> Identity {
    static IDENTITY: OnceLock<Identity> = OnceLock::new();
    IDENTITY.get_or_init(build_identity).clone()
}

fn build_identity() -> Identity {
    let catalogue = Catalogue::builtin();
    let names = Identity::names_of(&catalogue.variants().unwrap());
    Identity {
        id: EngineId {
            name: "Damspel".into(),
            version: "0.1.0".into(),
            author: "test".into(),
            country: "nl".into(),
        },
        variants: catalogue.ids(),
        names,
        defaults: Params {
            variant: "international".into(),
            variant_chosen: false,
            threads: 1,
            hash_mb: 64,
            level: 8,
            tb_dir: String::new(),
        },
        limits: Limits::default(),
    }
}

/// A line a GUI (or a fool) might send, for the current rules.
fn conversation_line<B: Bits>(rules: &Rules<B>, rng: &mut Rng) -> String {
    let g = rules.variant();
    let line = match rng.below(14) {
        0 => "hub".to_string(),
        1 => format!(
            "set-param name={} value={}",
            rng.pick(&["variant", "threads", "hash", "book"]),
            rng.pick(&[
                "killer",
                "normal",
                "turkish",
                "american",
                "chess",
                "0",
                "1",
                "2",
                "64",
                "65536",
                "65537",
                "-1",
                "18446744073709551615",
                "\"\"",
            ])
        ),
        2 => "init".to_string(),
        3 => "new-game".to_string(),
        4 | 5 => {
            let plies = rng.below(30);
            let mut pos = some_position(rules, rng, plies);
            let mut moves = Vec::new();
            for _ in 0..rng.below(6) {
                let legal = rules.moves(&pos);
                if legal.is_empty() {
                    break;
                }
                let mv = legal[rng.below(legal.len())];
                moves.push(write_move(g, &mv));
                pos = pos.play(&mv);
            }
            format!("pos start moves=\"{}\"", moves.join(" "))
        }
        6 => {
            let plies = rng.below(40);
            format!(
                "pos pos={}",
                write_position(g, &some_position(rules, rng, plies))
            )
        }
        7 => rng
            .pick(&[
                "level depth=1",
                "level nodes=10",
                "level move-time=0",
                "level infinite",
                "level moves=1 time=0.001",
                "level depth=4294967295",
                "level nodes=18446744073709551615",
            ])
            .to_string(),
        8 | 9 => rng
            .pick(&["go think", "go ponder", "go analyze", "go"])
            .to_string(),
        10 => rng.pick(&["stop", "ping", "ponder-hit"]).to_string(),
        11 => rng.pick(&LINES).to_string(),
        12 => "frobnicate now".to_string(),
        _ => rng
            .pick(&["", " ", "=", "\"", "pos pos=", "level depth=-1"])
            .to_string(),
    };
    if rng.below(5) == 0 {
        mutate(&line, rng)
    } else {
        line
    }
}

/// Every line the engine says is a valid response.
fn said(response: &Response) -> Result<(), TestCaseError> {
    let line = response.to_string();
    prop_assert!(!line.contains(['\n', '\r']), "{:?}", line);
    prop_assert!(Response::parse(&line).is_ok(), "{:?}", line);
    Ok(())
}

enum End {
    Quit,
    Reinit(Params),
    Switch(Params, Vec<Command>),
    Out,
}

/// Runs a conversation on a session until it quits, needs another variant, or `lines` runs
/// out. A search is answered at once with the first legal move (or, one time in three, only
/// after the next command, so that commands arrive during a search).
fn converse<B: Bits>(
    rules: Arc<Rules<B>>,
    params: Params,
    pending: Vec<Command>,
    rng: &mut Rng,
    lines: &mut usize,
) -> Result<End, TestCaseError> {
    let mut session = Session::new(identity(), params, rules.clone());
    let mut pending = Some(pending);
    let mut searching = false;
    loop {
        let mut actions = if let Some(commands) = pending.take() {
            session.resume(commands)
        } else {
            if *lines == 0 {
                return Ok(End::Out);
            }
            *lines -= 1;
            let text = conversation_line(&rules, rng);
            match Command::parse(&text) {
                Ok(c) => session.handle(c),
                Err(e) => {
                    check_error(&text, &e)?;
                    said(&Response::Error(e.message))?;
                    continue;
                }
            }
        };
        if searching && rng.below(3) != 0 {
            // The search of the session's position (unchanged while it runs) ends.
            let best = rules.moves(session.game().position()).first().copied();
            actions.extend(session.finished(best, None));
            searching = false;
        }
        while let Some(action) = actions.first().cloned() {
            actions.remove(0);
            match action {
                Action::Reply(r) => said(&r)?,
                Action::Search(order) => {
                    let legal = rules.moves(order.game.position());
                    prop_assert!(!legal.is_empty(), "a search of a finished position");
                    if rng.below(3) == 0 {
                        searching = true;
                    } else {
                        let best = legal[rng.below(legal.len())];
                        let after = order.game.position().play(&best);
                        let ponder = rules.moves(&after).first().copied();
                        actions.extend(session.finished(Some(best), ponder));
                    }
                }
                Action::Reinit(params) => return Ok(End::Reinit(params)),
                Action::Switch { params, pending } => return Ok(End::Switch(params, pending)),
                Action::Quit => return Ok(End::Quit),
                Action::NewGame | Action::Stop | Action::PonderHit => {}
            }
        }
    }
}

fn conversation(seed: u64, length: usize) -> Result<(), TestCaseError> {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    let catalogue = CATALOGUE.get_or_init(Catalogue::builtin);
    let mut rng = Rng(seed);
    let mut setup = Setup::new(identity());
    let mut lines = length;
    let mut start: Option<(Params, Vec<Command>)> = None;
    let any = &all_rules()[0];
    while start.is_none() {
        if lines == 0 {
            return Ok(());
        }
        lines -= 1;
        let text = on_rules!(any, |rules| conversation_line(rules, &mut rng));
        let command = match Command::parse(&text) {
            Ok(c) => c,
            Err(e) => {
                check_error(&text, &e)?;
                continue;
            }
        };
        match setup.handle(command) {
            SetupStep::Reply(replies) => replies.iter().try_for_each(said)?,
            SetupStep::Quit => return Ok(()),
            SetupStep::Init {
                params, pending, ..
            } => start = Some((params, pending.into_iter().collect())),
        }
    }
    let (mut params, mut pending) = start.expect("init");
    loop {
        let variant = catalogue
            .get(&params.variant)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let end = with_rules!(variant, |rules| converse(
            Arc::new(rules),
            params.clone(),
            std::mem::take(&mut pending),
            &mut rng,
            &mut lines
        ))?;
        match end {
            End::Quit | End::Out => return Ok(()),
            End::Reinit(p) => params = p,
            End::Switch(p, commands) => (params, pending) = (p, commands),
        }
    }
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn random_conversations(seed: u64, length in 1usize..80) {
        conversation(seed, length)?;
    }
}
