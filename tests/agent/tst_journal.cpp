// The agent's event journal: numbered without gaps, kept until acknowledged, and bounded by
// turning the oldest log lines and superseded traffic records into markers — never a process's
// start or exit, nor any other metric record.
#include "EventJournal.h"

#include <QtTest>

using hips::EventJournal;

namespace {

QCborMap logLine(int i) {
    return {{QStringLiteral("kind"), QStringLiteral("log")},
            {QStringLiteral("node"), QStringLiteral("w0")},
            {QStringLiteral("line"), QString::number(i)}};
}
QCborMap metric(const QString& kind, const QString& node, int round) {
    return {{QStringLiteral("kind"), QStringLiteral("metric")},
            {QStringLiteral("node"), node},
            {QStringLiteral("json"), QStringLiteral("{\"kind\":\"%1\",\"node\":\"%2\",\"round\":%3}").arg(kind, node).arg(round)}};
}
QCborMap exited() {
    return {{QStringLiteral("kind"), QStringLiteral("exited")}, {QStringLiteral("node"), QStringLiteral("w0")}};
}

// Whether the kept events and markers number 1 … `last` without a gap (a marker stands for seq
// … through).
bool coversWithoutGap(const EventJournal& j, qint64 last) {
    qint64 next = 1;
    for (auto it = j.pending().begin(); it != j.pending().end(); ++it) {
        if (it.key() != next) return false;
        next = it->value(QStringLiteral("through")).toInteger(it.key()) + 1;
    }
    return next == last + 1;
}

int count(const EventJournal& j, const QString& kind) {
    int n = 0;
    for (const QCborMap& e : j.pending()) n += e.value(QStringLiteral("kind")).toString() == kind;
    return n;
}

}  // namespace

class JournalTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void numbersAndAcknowledges() {
        EventJournal j;
        QCOMPARE(j.append(logLine(1)).value(QStringLiteral("seq")).toInteger(), 1);
        QCOMPARE(j.append(exited()).value(QStringLiteral("seq")).toInteger(), 2);
        QCOMPARE(j.append(logLine(3)).value(QStringLiteral("seq")).toInteger(), 3);
        j.acknowledge(2);
        QCOMPARE(j.pending().keys(), QList<qint64>{3});
        j.acknowledge(7);
        QVERIFY(j.pending().isEmpty());
        QCOMPARE(j.append(logLine(4)).value(QStringLiteral("seq")).toInteger(), 4);  // numbering goes on
        j.clear();
        QCOMPARE(j.append(logLine(5)).value(QStringLiteral("seq")).toInteger(), 1);  // a new controller, anew
    }

    void boundGivesWayOldestLogsAndSupersededTrafficFirst() {
        EventJournal j(100);
        j.append(exited());
        for (int r = 0; r < 30; ++r) {
            j.append(metric(QStringLiteral("traffic"), QStringLiteral("w0"), r));
            j.append(metric(QStringLiteral("train"), QStringLiteral("w0"), r));
            j.append(logLine(r));
        }
        QCOMPARE(j.pending().size(), 91);  // nothing given way below the bound
        QCOMPARE(j.skipped(), 0);
        for (int r = 30; r < 40; ++r) j.append(logLine(r));
        QVERIFY(j.skipped() > 0);
        QVERIFY(coversWithoutGap(j, 101));  // the numbering has no gap: markers stand in
        QVERIFY(j.pending().size() < 101 - j.skipped() + 20);  // (a run of them is one marker)
        QCOMPARE(count(j, QStringLiteral("exited")), 1);
        int train = 0, traffic = 0;
        for (const QCborMap& e : j.pending()) {
            const QString json = e.value(QStringLiteral("json")).toString();
            train += json.contains(QLatin1String("\"train\""));
            traffic += json.contains(QLatin1String("\"traffic\""));
        }
        QCOMPARE(train, 30);  // every train record kept
        QVERIFY(traffic >= 1 && traffic < 30);
        // The newest traffic record of the node is the one kept last.
        bool newestKept = false;
        for (const QCborMap& e : j.pending())
            newestKept = newestKept ||
                         e.value(QStringLiteral("json")).toString().contains(QLatin1String("\"traffic\",\"node\":\"w0\",\"round\":29"));
        QVERIFY(newestKept);
        const QCborMap first = j.pending().value(2);
        QCOMPARE(first.value(QStringLiteral("kind")).toString(), QStringLiteral("skipped"));
    }

    // A role that prints all week with no controller to read it: the journal stays within its
    // bytes (lines of 8 KB), and the lines that gave way are one marker between the records kept.
    void aChattyRoleIsBoundedInBytesAndMarkersJoin() {
        EventJournal j(1000000, 4 << 20);  // (the count bound out of reach)
        const QString line(8000, QLatin1Char('x'));
        for (int i = 0; i < 5000; ++i) {
            QCborMap e = logLine(i);
            e.insert(QStringLiteral("line"), line);
            j.append(e);
            if (i % 1000 == 0) j.append(metric(QStringLiteral("train"), QStringLiteral("w0"), i));
        }
        QVERIFY2(j.keptBytes() <= (qint64(4) << 20) * 11 / 10, qPrintable(QString::number(j.keptBytes())));
        QVERIFY(j.skipped() > 4000);
        QVERIFY(coversWithoutGap(j, 5005));
        QCOMPARE(count(j, QStringLiteral("metric")), 5);
        QVERIFY2(count(j, QStringLiteral("skipped")) <= 6,  // (one a run of lines between two records)
                 qPrintable(QString::number(count(j, QStringLiteral("skipped")))));
        j.acknowledge(5005);
        QVERIFY(j.isEmpty());
    }

    // A marker joined events the controller had already received (unacknowledged) to events it
    // had not: acknowledged in its middle, it stands for the rest; and what is sent to a
    // controller that has part of it is the rest, numbered after what it has (the controller
    // waited for a number the marker had swallowed, for ever).
    void aMarkerThatStraddlesWhatTheControllerHasStandsForTheRest() {
        EventJournal j(4);
        for (int i = 0; i < 10; ++i) j.append(logLine(i));
        QVERIFY(j.skipped() > 0);
        const qint64 first = j.pending().firstKey(), through = j.pending().first().value(QStringLiteral("through")).toInteger();
        QCOMPARE(first, 1);
        QVERIFY(through >= 3);
        // Sent to a controller that has 1 and 2: the marker's rest, from 3.
        const auto unseen = j.unseenFrom(2);
        QCOMPARE(unseen.key(), 1);
        const QCborMap sent = EventJournal::asSentAfter(unseen, 2);
        QCOMPARE(sent.value(QStringLiteral("seq")).toInteger(), 3);
        QCOMPARE(sent.value(QStringLiteral("through")).toInteger(), through);
        QCOMPARE(j.unseenFrom(through).key(), through + 1);  // (past the marker: the next entry)
        // Acknowledged up to 2: the marker stays for 3 … through.
        j.acknowledge(2);
        QCOMPARE(j.pending().firstKey(), 3);
        QCOMPARE(j.pending().first().value(QStringLiteral("through")).toInteger(), through);
        QCOMPARE(j.pending().first().value(QStringLiteral("seq")).toInteger(), 3);
    }

    // A traffic record acknowledged before its node's next one is forgotten for good (it was
    // remembered as superseded, one entry a record, for the life of the run).
    void anAcknowledgedRecordLeavesNothingBehind() {
        EventJournal j;
        for (int r = 1; r <= 3; ++r) {
            j.append(metric(QStringLiteral("traffic"), QStringLiteral("w0"), r));
            j.acknowledge(r);
        }
        QVERIFY(j.isEmpty());
    }

    // A restarted process counts its traffic from zero: the last record before its exit stands.
    void aRecordBeforeAnExitIsNotSuperseded() {
        EventJournal j(4);
        j.append(metric(QStringLiteral("traffic"), QStringLiteral("w0"), 1));  // seq 1: superseded by 2
        j.append(metric(QStringLiteral("traffic"), QStringLiteral("w0"), 2));  // seq 2: the process's last
        j.append(exited());  // seq 3
        j.append(metric(QStringLiteral("traffic"), QStringLiteral("w0"), 3));  // seq 4: the next process's
        j.append(metric(QStringLiteral("eval"), QStringLiteral("m"), 3));  // seq 5: over the bound
        QCOMPARE(j.skipped(), 1);
        QCOMPARE(j.pending().value(1).value(QStringLiteral("kind")).toString(), QStringLiteral("skipped"));
        QCOMPARE(j.pending().value(2).value(QStringLiteral("kind")).toString(), QStringLiteral("metric"));
    }

    void withNothingToGiveWayItGrows() {
        EventJournal j(10);
        for (int r = 0; r < 50; ++r) j.append(metric(QStringLiteral("eval"), QStringLiteral("m"), r));
        QCOMPARE(j.pending().size(), 50);
        QCOMPARE(j.skipped(), 0);
    }
};

QTEST_GUILESS_MAIN(JournalTest)
#include "tst_journal.moc"
