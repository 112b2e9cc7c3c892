// Key slicing in the designer: a party's servers are its key slices, as many in every party as
// there are global servers, so a server dropped, deleted or dragged keeps that true (or is refused,
// saying why), and a role dropped onto a party listens beside the party's own ports.
#include "DesignerFixture.h"
#include "TopologyEdits.h"

#include <QUndoStack>

using namespace hips;
using namespace hips::test;

class KeySliceTest : public QObject {
    Q_OBJECT
    std::unique_ptr<Designer> d;

private Q_SLOTS:
    void init() {
        openShownDesigner(d);
        if (!QTest::currentTestFailed()) d->view()->fit();
    }
    void cleanup() { d.reset(); }

    // A party's servers are key slices and every party needs as many as there are global servers:
    // a server dropped onto a host of party2 is one more slice everywhere (one undo step), so the
    // topology stays runnable, and the dropped one is on that host.
    void aDroppedServerAddsAKeySliceToEveryParty() {
        dropFromPalette(*d, PaletteItem::Host, centerOf(*d, {ElementRef::Kind::Party, "party2"}));
        dropFromPalette(*d, PaletteItem::Server, centerOf(*d, {ElementRef::Kind::HostGroup, "party2", "host1"}));
        for (const Party& p : d->topology().parties) QCOMPARE(p.servers.size(), 2);
        QCOMPARE(d->topology().party("party2")->servers.last().host, QString("host1"));
        QCOMPARE(d->undoStack()->undoText(), QString("Add server"));
        QCOMPARE(d->topology().party("party1")->servers.last().host, d->topology().party("party1")->servers.first().host);
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
        QVERIFY(d->scene()->item({ElementRef::Kind::Server, "party1", {}, 1}));

        // Deleting one of them takes that slice away everywhere, again one step.
        d->scene()->selectElements({{ElementRef::Kind::Server, "party1", {}, 1}});
        d->deleteSelection();
        QCOMPARE(d->undoStack()->undoText(), QString("Delete server 1 of party1"));  // in words, not a key
        for (const Party& p : d->topology().parties) QCOMPARE(p.servers.size(), 1);
        QCOMPARE(d->topology().party("party2")->servers.first().host, QString("local"));
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
        d->undoStack()->undo();
        QCOMPARE(d->topology().party("party2")->servers.last().host, QString("host1"));
        d->undoStack()->undo();
        for (const Party& p : d->topology().parties) QCOMPARE(p.servers.size(), 1);
    }

    // A scheduler dropped back onto party1 listens beside party1's ports (9202), not on the first
    // free port from 9100 up, among the central party's.
    void aDroppedRoleTakesAPortBesideItsParty() {
        d->scene()->selectElements({{ElementRef::Kind::Scheduler, "party1"}});
        d->deleteSelection();
        dropFromPalette(*d, PaletteItem::Scheduler, centerOf(*d, {ElementRef::Kind::HostGroup, "party1", "local"}));
        QVERIFY(d->topology().party("party1")->scheduler);
        QCOMPARE(d->topology().party("party1")->scheduler->port, 9202);
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
    }

    // A party's servers are its key slices: one dragged onto another party is refused, saying why;
    // onto another host of its party it moves there and keeps its rank.
    void aServerMovesBetweenTheHostsOfItsPartyOnly() {
        QSignalSpy refused(d.get(), &Designer::message);
        const ElementRef server{ElementRef::Kind::Server, "party1", {}, 0};
        drag(*d, centerOf(*d, server), centerOf(*d, {ElementRef::Kind::HostGroup, "party2", "local"}));
        QCOMPARE(d->topology().party("party1")->servers.size(), 1);
        QCOMPARE(d->topology().party("party2")->servers.size(), 1);
        QCOMPARE(refused.size(), 1);
        QVERIFY2(refused.first().first().toString().contains("Servers per party"), qPrintable(refused.first().first().toString()));

        Topology sliced = d->topology();
        QVERIFY(edits::setServerCount(sliced, 2).isEmpty());
        d->apply("Servers per party", sliced);
        dropFromPalette(*d, PaletteItem::Host, centerOf(*d, {ElementRef::Kind::Party, "party1"}));
        drag(*d, centerOf(*d, server), centerOf(*d, {ElementRef::Kind::HostGroup, "party1", "host1"}));
        QCOMPARE(d->topology().party("party1")->servers.first().host, QString("host1"));
        QCOMPARE(d->topology().party("party1")->servers.last().host, QString("local"));
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
    }
};

QTEST_MAIN(KeySliceTest)
#include "tst_keyslices.moc"
