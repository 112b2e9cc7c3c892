// Where the designer draws things: parties that overlap nothing however they are added or
// grow, lines and their labels clear of the boxes they join, and issue badges drawn whole.
#include "Designer.h"
#include "DesignerFixture.h"
#include "DesignerItems.h"
#include "DesignerScene.h"
#include "DesignerView.h"
#include "EdgeRouter.h"
#include "PropertyPanel.h"
#include "TopologyEdits.h"

#include <QPainter>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

using namespace hips;
using namespace hips::test;

class DesignerLayoutTest : public QObject {
    Q_OBJECT
    std::unique_ptr<Designer> d;

private Q_SLOTS:
    void init() {
        test::openShownDesigner(d);
        if (!QTest::currentTestFailed()) d->view()->fit();
    }
    void cleanup() { d.reset(); }

    QString partyOverlaps() const {  // "a b" for the first two party boxes that overlap, or empty
        QList<DesignerItem*> boxes;
        for (QGraphicsItem* i : d->scene()->items())
            if (i->type() == DesignerItem::kType && static_cast<DesignerItem*>(i)->ref().kind == ElementRef::Kind::Party)
                boxes << static_cast<DesignerItem*>(i);
        for (int a = 0; a < boxes.size(); ++a)
            for (int b = a + 1; b < boxes.size(); ++b)
                if (boxes[a]->sceneBoundingRect().intersects(boxes[b]->sceneBoundingRect()))
                    return boxes[a]->ref().party + QLatin1Char(' ') + boxes[b]->ref().party;
        return {};
    }

    // Dropped and pasted parties land where they overlap no other box; a pasted central party is
    // an ordinary one that can run (it gets workers), so the topology stays valid.
    void droppedAndPastedPartiesOverlapNothing() {
        auto overlaps = [&] {
            QList<QRectF> boxes;
            for (QGraphicsItem* i : d->scene()->items())
                if (i->type() == DesignerItem::kType && static_cast<DesignerItem*>(i)->ref().kind == ElementRef::Kind::Party)
                    boxes << i->sceneBoundingRect();
            for (int a = 0; a < boxes.size(); ++a)
                for (int b = a + 1; b < boxes.size(); ++b)
                    if (boxes[a].intersects(boxes[b])) return true;
            return false;
        };
        QVERIFY(!overlaps());
        dropFromPalette(*d, PaletteItem::Party, centerOf(*d, {ElementRef::Kind::Party, "party1"}));  // right on party1
        QCOMPARE(d->topology().parties.size(), 4);
        QVERIFY(!overlaps());
        for (const char* party : {"party2", "central"}) {
            d->scene()->selectElements({{ElementRef::Kind::Party, party}});
            d->copySelection();
            d->paste();
            QVERIFY2(!overlaps(), party);
        }
        QCOMPARE(d->topology().parties.size(), 6);
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
        QCOMPARE(d->undoStack()->count(), 3);  // each paste is one step, placement included
        // Each new party has a hundred of ports to itself, as the shipped ones (9100…, 9200…, 9300…):
        // the dropped one took 9103 and 9104, beside the central party's.
        QStringList ports;
        for (const Party& p : d->topology().parties.mid(3)) ports << QString("%1 %2").arg(p.scheduler->port).arg(p.servers.first().port);
        QCOMPARE(ports, QStringList({"9400 9401", "9500 9501", "9600 9601"}));
    }

    // A party dropped beside the central party (not below it) is joined side to side: its lines
    // across parties keep out of both parties' boxes (they used to run from the central party's
    // bottom up through the new party's title and chips).
    void linesAcrossPartiesKeepOutOfThePartiesTheyJoin() {
        const QRectF central = d->scene()->item({ElementRef::Kind::Party, "central"})->sceneBoundingRect();
        dropFromPalette(*d, PaletteItem::Party, QPointF(d->scene()->itemsBoundingRect().right() + 110, central.top() + 40));
        const QRectF party3 = d->scene()->item({ElementRef::Kind::Party, "party3"})->sceneBoundingRect();
        QVERIFY(party3.top() < central.bottom() && central.top() < party3.bottom());  // side by side
        Topology labelled = d->topology();
        labelled.training.compression = QStringLiteral("fp16");  // every data line gets a label chip
        for (Party& p : labelled.parties)
            if (p.id == QLatin1String("party3")) p.wan = WanLink{5, 50};  // a long one
        d->apply(QStringLiteral("compress"), labelled);
        int checked = 0;
        for (QGraphicsItem* i : d->scene()->items()) {
            auto* edge = dynamic_cast<EdgeItem*>(i);
            if (!edge || edge->style() == EdgeItem::Style::InsideParty) continue;
            if (!party3.adjusted(-1, -1, 1, 1).contains(edge->path().pointAtPercent(0))) continue;  // another party's
            for (int step = 1; step < 50; ++step) {
                const QPointF at = edge->path().pointAtPercent(step / 50.0);
                for (const QRectF& box : {central, party3})
                    QVERIFY2(!box.adjusted(1, 1, -1, -1).contains(at), qPrintable(QString("a line passes %1,%2").arg(at.x()).arg(at.y())));
            }
            for (QGraphicsItem* chip : edge->childItems())
                QVERIFY(!chip->sceneBoundingRect().intersects(central) && !chip->sceneBoundingRect().intersects(party3));
            ++checked;
        }
        QCOMPARE(checked, 2);  // party3's data and control lines
    }

    // More servers per party make the central party taller (a global server each): the parties
    // in the row below move down instead of being drawn over it.
    void aTallerCentralPartyMovesTheRowBelowIt() {
        auto* servers = qobject_cast<QSpinBox*>(d->properties()->field("servers"));
        QVERIFY(servers);
        typeInto(servers, "4");
        QCOMPARE(d->topology().centralParty()->servers.size(), 4);
        const QRectF central = d->scene()->item({ElementRef::Kind::Party, "central"})->sceneBoundingRect();
        for (const char* party : {"party1", "party2"})
            QVERIFY2(!d->scene()->item({ElementRef::Kind::Party, party})->sceneBoundingRect().intersects(central), party);
    }

    // The router alone: around a box standing between the two, square corners only, from a
    // side of one to a side of the other; a second line beside it keeps its distance.
    void theRouterGoesAroundABoxInTheWay() {
        const QRectF from(0, 0, 100, 50), to(0, 400, 100, 50), wall(-60, 150, 220, 100);
        const designer::Route r = designer::routeOrthogonal(from, to, {wall});
        QVERIFY(r.found());
        for (const QRectF& box : {from, to, wall}) QVERIFY(!designer::routeEnters(r.points, box));
        for (int k = 0; k + 1 < r.points.size(); ++k)
            QVERIFY(qFuzzyCompare(r.points[k].x(), r.points[k + 1].x()) || qFuzzyCompare(r.points[k].y(), r.points[k + 1].y()));
        auto onBorder = [](const QRectF& box, QPointF p) {
            return box.adjusted(-0.01, -0.01, 0.01, 0.01).contains(p) && !box.adjusted(0.01, 0.01, -0.01, -0.01).contains(p);
        };
        QVERIFY(onBorder(from, r.points.first()) && onBorder(to, r.points.last()));
        QVERIFY(r.points.size() >= 4);  // it had to turn to get past the wall
        const QPolygonF beside = designer::offsetRoute(r.points, 6);
        QCOMPARE(beside.size(), r.points.size());
        for (int k = 0; k + 1 < r.points.size(); ++k) {
            const bool horizontal = qFuzzyCompare(r.points[k].y(), r.points[k + 1].y());
            QCOMPARE(horizontal ? std::abs(beside[k].y() - r.points[k].y()) : std::abs(beside[k].x() - r.points[k].x()), 6.0);
            QCOMPARE(horizontal, qFuzzyCompare(beside[k].y(), beside[k + 1].y()));  // still square
        }
    }

    // A party the user placed below another is pushed down as the one above grows (workers
    // dropped into it), instead of being drawn over; undoing the drops brings it back.
    void aGrowingPartyPushesItsNeighbourAside() {
        const QRectF party1 = d->scene()->item({ElementRef::Kind::Party, "party1"})->sceneBoundingRect();
        const QPointF below = party1.bottomLeft() + QPointF(0, 40);
        drag(*d, titleOf(*d, {ElementRef::Kind::Party, "party2"}), below + QPointF(12, 6));
        const QPointF placed = d->scene()->item({ElementRef::Kind::Party, "party2"})->pos();
        QVERIFY2(std::abs(placed.y() - below.y()) < 2, qPrintable(QString::number(placed.y())));
        const int steps = d->undoStack()->index();
        for (int i = 0; i < 4; ++i)  // each a chip taller: 136 px, far more than the 40 between them
            dropFromPalette(*d, PaletteItem::Workers, titleOf(*d, {ElementRef::Kind::HostGroup, "party1", "local"}));
        QCOMPARE(d->topology().party("party1")->workers.size(), 5);  // a group more each
        QCOMPARE(partyOverlaps(), QString());
        const QRectF grown = d->scene()->item({ElementRef::Kind::Party, "party1"})->sceneBoundingRect();
        const QPointF pushed = d->scene()->item({ElementRef::Kind::Party, "party2"})->pos();
        QVERIFY(grown.height() > party1.height() + 100);
        QCOMPARE(pushed.x(), placed.x());  // straight down, the less of the two ways
        QVERIFY(pushed.y() >= grown.bottom() + 20);
        while (d->undoStack()->index() > steps) d->undoStack()->undo();
        QCOMPARE(d->scene()->item({ElementRef::Kind::Party, "party2"})->pos(), placed);
    }

    // A party dragged onto another lands beside it, where the drag ends nearest, and is stored
    // where it is shown.
    void aPartyDroppedOnAnotherLandsBesideIt() {
        const QPointF onto = centerOf(*d, {ElementRef::Kind::Party, "party2"});
        drag(*d, titleOf(*d, {ElementRef::Kind::Party, "party1"}), onto);
        QCOMPARE(partyOverlaps(), QString());
        const QPointF shown = d->scene()->item({ElementRef::Kind::Party, "party1"})->pos();
        QCOMPARE(edits::partyPosition(d->topology(), "party1"), shown);
        QVERIFY(QLineF(shown, onto).length() < 600);  // near the drop, not far away
    }

    // A party put below another, so that the straight way to the central party crosses it: its
    // lines go around every box on the way, as drawn (corners rounded) and as routed.
    void linesAcrossPartiesGoAroundTheOtherParties() {
        const QPointF title2 = titleOf(*d, {ElementRef::Kind::Party, "party2"});
        drag(*d, title2, title2 + QPointF(20, 0));  // placed: it stays where it is when party1 leaves the row
        const QRectF party2 = d->scene()->item({ElementRef::Kind::Party, "party2"})->sceneBoundingRect();
        drag(*d, titleOf(*d, {ElementRef::Kind::Party, "party1"}), party2.bottomLeft() + QPointF(12, 160));
        QCOMPARE(partyOverlaps(), QString());
        QList<QRectF> boxes;
        for (const char* party : {"central", "party1", "party2"})
            boxes << d->scene()->item({ElementRef::Kind::Party, party})->sceneBoundingRect();
        QVERIFY(boxes[1].top() > boxes[2].bottom() && boxes[1].left() < boxes[2].right() && boxes[2].left() < boxes[1].right());  // below
        int checked = 0;
        for (QGraphicsItem* i : d->scene()->items()) {
            auto* edge = dynamic_cast<EdgeItem*>(i);
            if (!edge || edge->style() == EdgeItem::Style::InsideParty) continue;
            for (const QRectF& box : boxes) {
                QVERIFY2(!designer::routeEnters(edge->route(), box), qPrintable(QString("a route enters %1,%2").arg(box.x()).arg(box.y())));
                for (int step = 0; step <= 200; ++step)
                    QVERIFY(!box.adjusted(1, 1, -1, -1).contains(edge->path().pointAtPercent(step / 200.0)));
            }
            ++checked;
        }
        QCOMPARE(checked, 4);  // two parties' data and control lines
    }

    // The red "!" on a flagged party's corner is drawn whole, the half outside the party's box
    // too: the item painted it itself, outside its own bounds, and the view cut that half off.
    void anIssueBadgeIsDrawnWholeOnItsCorner() {
        Topology t = d->topology();
        edits::remove(t, {{ElementRef::Kind::Server, "central", {}, 0}});
        d->apply(QStringLiteral("delete"), t);
        DesignerItem* central = d->scene()->item({ElementRef::Kind::Party, "central"});
        QVERIFY(central && central->hasIssue());
        // A view repaints only the parts of the scene that changed, drawing the items whose
        // bounds meet them, as render() does for the strip just above the party's corner.
        const QRectF box = central->sceneBoundingRect();
        QImage strip(96, 24, QImage::Format_RGB32);
        strip.fill(Qt::white);
        QPainter painter(&strip);
        d->scene()->render(&painter, QRectF(strip.rect()), QRectF(box.right() - 12, box.top() - 6, 24, 6));
        painter.end();
        int red = 0;
        for (int y = 0; y < strip.height(); ++y)
            for (int x = 0; x < strip.width(); ++x)
                red += qAbs(strip.pixelColor(x, y).red() - 0xd0) < 30 && strip.pixelColor(x, y).green() < 90;
        QVERIFY2(red > 50, qPrintable(QString::number(red)));
    }
};

QTEST_MAIN(DesignerLayoutTest)
#include "tst_designerlayout.moc"
