// The topology designer: palette drops through real drag-and-drop events, drags of parties and
// roles through real mouse events, undo/redo restoring the exact JSON, the property panel's
// edits, and an invalid topology marking its item and disabling Start all.
#include "BrokenRegistries.h"
#include "../history/SmallDisk.h"
#include "Designer.h"
#include "DesignerFixture.h"
#include "DesignerScene.h"
#include "DesignerView.h"
#include "TopologyDocument.h"
#include "MainWindow.h"
#include "Palette.h"
#include "PropertyPanel.h"
#include "RunCharts.h"
#include "RunPanel.h"
#include "RunStore.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"
#include "Versions.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QToolTip>
#include <QMimeData>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

using namespace hips;
using namespace hips::test;

namespace {

const QString kDefault = QStringLiteral(HIPS_SOURCE_DIR "/resources/topologies/default.json");

}  // namespace

class DesignerTest : public QObject {
    Q_OBJECT
    std::unique_ptr<Designer> d;

private Q_SLOTS:
    void init() {
        test::openShownDesigner(d);
        if (!QTest::currentTestFailed()) d->view()->fit();
    }
    void cleanup() { d.reset(); }

    void droppingAPaletteItemCreatesTheModelItem() {
        const int before = d->topology().party("party1")->workers.size();
        dropFromPalette(*d, PaletteItem::Workers, centerOf(*d, {ElementRef::Kind::HostGroup, "party1", "local"}));
        QCOMPARE(d->topology().party("party1")->workers.size(), before + 1);
        QVERIFY(d->scene()->item({ElementRef::Kind::Workers, "party1", {}, before}));  // drawn, too
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({{ElementRef::Kind::Workers, "party1", {}, before}}));  // and selected

        const QRectF everything = d->scene()->itemsBoundingRect();
        const QPointF dropAt = everything.bottomRight() + QPointF(80, 80);
        dropFromPalette(*d, PaletteItem::Party, dropAt);
        const Party* added = d->topology().party("party3");
        QVERIFY(added);
        const QRectF box = d->scene()->item({ElementRef::Kind::Party, "party3"})->sceneBoundingRect();
        QVERIFY2(box.contains(dropAt) && dropAt.y() - box.top() < 40 && std::abs(dropAt.x() - box.center().x()) < 10,  // its title
                 qPrintable(QString("%1,%2 in %3,%4 %5x%6")
                                .arg(dropAt.x())
                                .arg(dropAt.y())
                                .arg(box.x())
                                .arg(box.y())
                                .arg(box.width())
                                .arg(box.height())));
        QVERIFY(added->scheduler && added->servers.size() == 1 && added->workers.size() == 1);  // complete, so it runs
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));  // fresh ports, no clash
        QVERIFY(d->scene()->item({ElementRef::Kind::Party, "party3"}));
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({{ElementRef::Kind::Party, "party3"}}));

        dropFromPalette(*d, PaletteItem::Host, centerOf(*d, {ElementRef::Kind::Party, "party2"}));
        QCOMPARE(d->topology().hosts.size(), 2);
        QVERIFY(d->scene()->item({ElementRef::Kind::HostGroup, "party2", "host1"}));
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({{ElementRef::Kind::HostGroup, "party2", "host1"}}));
        QCOMPARE(d->properties()->element().host, QString("host1"));  // its fields in the panel
        QCOMPARE(d->undoStack()->count(), 3);
    }

    void aSecondSchedulerIsRefusedWithAReason() {
        QSignalSpy refused(d.get(), &Designer::message);
        dropFromPalette(*d, PaletteItem::Scheduler, centerOf(*d, {ElementRef::Kind::Party, "party1"}));
        QCOMPARE(refused.size(), 1);
        QVERIFY(refused.first().first().toString().contains("already has a scheduler"));
        QCOMPARE(d->undoStack()->count(), 0);
        QTRY_VERIFY(QToolTip::isVisible());  // said at the pointer, not only in the status bar
        QVERIFY(QToolTip::text().contains("already has a scheduler"));
    }

    void undoAndRedoRestoreTheExactJson() {
        QList<QByteArray> states{d->json()};
        auto step = [&](auto edit) {
            edit();
            states << d->json();
            QVERIFY(states.last() != states[states.size() - 2]);
        };
        step([&] { dropFromPalette(*d, PaletteItem::Workers, centerOf(*d, {ElementRef::Kind::HostGroup, "party2", "local"})); });
        step([&] {
            const QPointF title = d->scene()->item({ElementRef::Kind::Party, "party1"})->sceneBoundingRect().topLeft() + QPointF(60, 10);
            drag(*d, title, title + QPointF(120, 60));
        });
        step([&] {
            d->scene()->clearSelection();
            auto* rounds = qobject_cast<QSpinBox*>(d->properties()->field("rounds"));
            QVERIFY(rounds);
            rounds->setValue(7);
        });
        step([&] {
            d->scene()->selectElements({{ElementRef::Kind::Party, "party2"}});
            auto* id = qobject_cast<QLineEdit*>(d->properties()->field("party_id"));
            QVERIFY(id);
            id->setText("hospital");
            Q_EMIT id->editingFinished();
        });
        step([&] {
            d->scene()->selectElements({{ElementRef::Kind::Workers, "hospital", {}, 0}});
            d->deleteSelection();
        });
        step([&] {
            d->scene()->selectElements({{ElementRef::Kind::Party, "party1"}});
            d->copySelection();
            d->paste();
        });
        QVERIFY(d->topology().party("hospital"));
        QCOMPARE(d->topology().training.rounds, 7);
        QCOMPARE(d->undoStack()->count(), states.size() - 1);
        for (int i = int(states.size()) - 2; i >= 0; --i) {
            d->undoStack()->undo();
            QCOMPARE(d->json(), states[i]);
        }
        for (int i = 1; i < states.size(); ++i) {
            d->undoStack()->redo();
            QCOMPARE(d->json(), states[i]);
        }
    }

    // A click (press and release on the viewport, nothing moved) selects what is under the
    // mouse, of every kind, and the property panel shows that element's fields.
    void aClickSelectsEveryElementKindAndShowsItsFields() {
        struct Case {
            ElementRef ref;
            const char* field;
            bool titleBar;  // a box with items inside: click its title, not its middle
        };
        const QList<Case> cases{{{ElementRef::Kind::Party, "party1"}, "party_id", true},
                                {{ElementRef::Kind::HostGroup, "party1", "local"}, "host_address", true},
                                {{ElementRef::Kind::Scheduler, "party1"}, "role_port", false},
                                {{ElementRef::Kind::Server, "party2", {}, 0}, "role_port", false},
                                {{ElementRef::Kind::Workers, "party2", {}, 0}, "role_count", false},
                                {{ElementRef::Kind::MasterWorker, "central"}, "role_device", false},
                                {{ElementRef::Kind::StateService, "central"}, "role_port", false},
                                {{ElementRef::Kind::Workers, "party1", {}, 0}, "role_slowdown", false}};
        for (const Case& c : cases) {
            DesignerItem* item = d->scene()->item(c.ref);
            QVERIFY2(item, qPrintable(c.ref.key()));
            const QPointF at = c.titleBar ? titleOf(*d, c.ref) : centerOf(*d, c.ref);
            QTest::mouseClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier, d->view()->mapFromScene(at));
            item = d->scene()->item(c.ref);  // (a rebuilt scene would have made new items)
            QVERIFY2(item && item->isSelected(), qPrintable(c.ref.key()));
            QCOMPARE(d->scene()->selectedItems().size(), 1);
            QVERIFY2(d->properties()->field(c.field), qPrintable(c.ref.key() + ": no field " + c.field));
        }
        QCOMPARE(d->undoStack()->count(), 0);  // clicks edit nothing
    }

    // A host's address is edited in the property panel after a click on its box, as one step.
    void aClickedHostIsEditable() {
        const ElementRef host{ElementRef::Kind::HostGroup, "party1", "local"};
        click(*d, titleOf(*d, host));
        auto* address = qobject_cast<QLineEdit*>(d->properties()->field("host_address"));
        QVERIFY(address);
        typeInto(address, "10.0.0.7");
        QCOMPARE(d->topology().host("local")->address, QStringLiteral("10.0.0.7"));
        QCOMPARE(d->undoStack()->count(), 1);
    }

    // A party's fields filled in from the keyboard, as a form is: type, Tab to the next field,
    // type. Each edit redrew the party, which rebuilt the form under the field Tab had moved to,
    // so the second value went nowhere; a rename also lost the selection.
    void tabbingThroughAPartysFieldsKeepsEveryValue() {
        click(*d, titleOf(*d, {ElementRef::Kind::Party, "party1"}));
        auto* id = qobject_cast<QLineEdit*>(d->properties()->field("party_id"));
        QVERIFY(id);
        id->setFocus();
        id->selectAll();
        QTest::keyClicks(id, "hospital");
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);  // to "Central party"
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);  // to the WAN bandwidth
        QTest::keyClicks(QApplication::focusWidget(), "7");
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);  // to the WAN latency
        QTest::keyClicks(QApplication::focusWidget(), "60");
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        const Party* renamed = d->topology().party("hospital");
        QVERIFY(renamed && renamed->wan);
        QCOMPARE(renamed->wan->bandwidthMbps, 7.0);
        QCOMPARE(renamed->wan->latencyMs, 60.0);
        QCOMPARE(d->undoStack()->count(), 3);
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({{ElementRef::Kind::Party, "hospital"}}));
        QCOMPARE(d->properties()->element().party, QStringLiteral("hospital"));
    }

    // Undo selects again what was selected before the edit, and redo what was selected before
    // the undo: an undone deletion shows the party back with its fields (nothing was selected).
    void undoAndRedoSelectWhatWasSelected() {
        const ElementRef party1{ElementRef::Kind::Party, "party1"}, hospital{ElementRef::Kind::Party, "hospital"};
        click(*d, titleOf(*d, party1));
        d->deleteSelection();
        QVERIFY(!d->topology().party("party1"));
        d->undoStack()->undo();
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({party1}));
        QCOMPARE(d->properties()->element(), party1);
        d->undoStack()->redo();  // nothing was selected when it was undone
        QVERIFY(!d->topology().party("party1") && d->scene()->selectedElements().isEmpty());
        d->undoStack()->undo();
        auto* id = qobject_cast<QLineEdit*>(d->properties()->field("party_id"));
        QVERIFY(id);
        typeInto(id, "hospital");
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({hospital}));
        d->undoStack()->undo();  // the party under its old name
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({party1}));
        QCOMPARE(d->properties()->element(), party1);
        d->undoStack()->redo();
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({hospital}));
        QCOMPARE(d->properties()->element(), hospital);
    }

    // An edit redraws only the parties it changed: party1's items are the same objects after
    // party2 gained workers (and after the undo), and the edit's event names party2 alone.
    void anEditRedrawsOnlyThePartiesItChanged() {
        QSignalSpy changes(d->document(), &TopologyDocument::changed);
        // Items are marked: a redrawn item is a new one, without the mark (an address may be reused).
        auto mark = [&](const ElementRef& ref) { d->scene()->item(ref)->setData(7, QStringLiteral("before the edit")); };
        auto marked = [&](const ElementRef& ref) { return d->scene()->item(ref) && d->scene()->item(ref)->data(7).isValid(); };
        const ElementRef party1{ElementRef::Kind::Party, "party1"}, party1Workers{ElementRef::Kind::Workers, "party1", {}, 0},
            party2{ElementRef::Kind::Party, "party2"};
        for (const ElementRef& r : {party1, party1Workers, party2}) mark(r);
        const int edges = d->scene()->edgeCount();
        dropFromPalette(*d, PaletteItem::Workers, centerOf(*d, {ElementRef::Kind::HostGroup, "party2", "local"}));
        QCOMPARE(changes.size(), 1);
        const auto change = changes.first().first().value<TopologyChange>();
        QCOMPARE(change.parties, QSet<QString>{"party2"});
        QVERIFY(!change.hosts && !change.training && !change.everything);
        QVERIFY(marked(party1) && marked(party1Workers));  // untouched
        QVERIFY(!marked(party2));  // drawn anew
        QVERIFY(d->scene()->item({ElementRef::Kind::Workers, "party2", {}, 1}));
        QCOMPARE(d->scene()->edgeCount(), edges + 1);  // the new group's line to its server
        d->undoStack()->undo();
        QVERIFY(marked(party1));
        QVERIFY(!d->scene()->item({ElementRef::Kind::Workers, "party2", {}, 1}));
        QCOMPARE(d->scene()->edgeCount(), edges);
        int boxes = 0;  // no box left behind by the redraws
        for (QGraphicsItem* i : d->scene()->items())
            boxes += i->type() == DesignerItem::kType && static_cast<DesignerItem*>(i)->ref().kind == ElementRef::Kind::Party;
        QCOMPARE(boxes, 3);
    }

    // A selected worker group stays selected, with its own fields, when a sibling before it is
    // deleted (and when that is undone): references name the group, not its place in the list.
    void aReferenceSurvivesItsSiblingsRemoval() {
        dropFromPalette(*d, PaletteItem::Workers, centerOf(*d, {ElementRef::Kind::HostGroup, "party1", "local"}));
        const ElementRef second{ElementRef::Kind::Workers, "party1", {}, 1};
        QVERIFY(d->scene()->item(second));
        Topology t = d->topology();
        t.parties[1].workers[1].count = 7;  // the second group is told apart by its count
        d->apply("count", t);
        QTest::mouseClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier, d->view()->mapFromScene(centerOf(*d, second)));
        QVERIFY(d->scene()->item(second)->isSelected());
        t = d->topology();
        edits::remove(t, {{ElementRef::Kind::Workers, "party1", {}, 0}});  // the first group goes
        d->apply("remove the first", t);
        QCOMPARE(d->topology().party("party1")->workers.size(), 1);
        QCOMPARE(d->topology().party("party1")->workers[0].count, 7);
        QVERIFY(d->scene()->item(second) && d->scene()->item(second)->isSelected());  // still the group of 7
        QCOMPARE(qobject_cast<QSpinBox*>(d->properties()->field("role_count"))->value(), 7);
        d->undoStack()->undo();
        QVERIFY(d->scene()->item(second)->isSelected());
        QCOMPARE(qobject_cast<QSpinBox*>(d->properties()->field("role_count"))->value(), 7);
    }

    // A double click on a chip selects it and puts the keyboard in its first field: typing edits it.
    void aDoubleClickEditsTheElement() {
        const ElementRef workers{ElementRef::Kind::Workers, "party2", {}, 0};
        QTest::mouseDClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier, d->view()->mapFromScene(centerOf(*d, workers)));
        QVERIFY(d->scene()->item(workers)->isSelected());
        QWidget* focused = QApplication::focusWidget();
        QVERIFY(focused);
        QCOMPARE(focused->objectName(), QStringLiteral("role_count"));  // the group's first text field
        QVERIFY(d->properties()->isAncestorOf(focused));
    }

    // A right click on an unselected host box selects it and offers its entries, "Add here"
    // with every palette item (adding where the click was), and the window's edit actions.
    void theContextMenuActsWhereTheClickWas() {
        QAction copy(QStringLiteral("Copy"));
        d->setCanvasActions({&copy});
        const ElementRef host{ElementRef::Kind::HostGroup, "party2", "local"};
        const QPoint viewportAt = d->view()->mapFromScene(titleOf(*d, host));
        QContextMenuEvent right(QContextMenuEvent::Mouse, viewportAt, d->view()->viewport()->mapToGlobal(viewportAt));
        QApplication::sendEvent(d->view()->viewport(), &right);
        QVERIFY(d->scene()->item(host)->isSelected());
        QMenu* menu = nullptr;
        QTRY_VERIFY((menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())));
        QStringList entries;
        for (QAction* a : menu->actions()) entries << a->text();
        QVERIFY2(entries.contains(QStringLiteral("&Edit properties")) && entries.contains(QStringLiteral("Copy")),
                 qPrintable(entries.join('|')));
        QAction* addHere = menu->actions().at(entries.indexOf(QStringLiteral("&Add here")));
        QAction* addWorkers = nullptr;
        for (QAction* a : addHere->menu()->actions())
            if (a->text() == QStringLiteral("Workers")) addWorkers = a;
        QVERIFY(addWorkers);
        const int before = d->topology().party("party2")->workers.size();
        addWorkers->trigger();
        menu->close();
        QCOMPARE(d->topology().party("party2")->workers.size(), before + 1);
        QCOMPARE(d->topology().party("party2")->workers.last().host, QStringLiteral("local"));
        QCOMPARE(d->undoStack()->count(), 1);
    }

    // A worker group's adversary is chosen in its panel: the strength field then appears, and the
    // saved topology says what the CLI reads.
    void aWorkerGroupCanBeMadeAdversarial() {
        const ElementRef workers{ElementRef::Kind::Workers, "party1", {}, 0};
        QTest::mouseClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier, d->view()->mapFromScene(centerOf(*d, workers)));
        auto* kind = qobject_cast<QComboBox*>(d->properties()->field("role_adversary"));
        QVERIFY(kind);
        QVERIFY(!d->properties()->field("role_adversary_strength"));
        kind->setFocus();
        QTest::keyClick(kind, Qt::Key_Down);  // none → reverse, as the keyboard would
        QCOMPARE(d->topology().party("party1")->workers[0].adversary->kind, QStringLiteral("reverse"));
        auto* strength = qobject_cast<QDoubleSpinBox*>(d->properties()->field("role_adversary_strength"));
        QVERIFY(strength);
        QCOMPARE(strength->value(), 100.0);
        const TopologyLoad cli = TopologyReader::readJson(TopologyWriter::toJson(d->topology()));
        QVERIFY(cli.topology);
        QCOMPARE(cli.topology->party("party1")->workers[0].adversary->strength, 100.0);
    }

    // A global server's standby host is chosen in its panel (party servers have none), and the
    // saved topology says what the CLI reads.
    void aGlobalServerCanBeGivenAStandbyHost() {
        Topology t = d->topology();
        t.hosts.clear();
        for (const char* id : {"a", "b", "c"}) {
            Host h;
            h.id = id;
            h.address = QStringLiteral("10.0.0.%1").arg(t.hosts.size() + 1);
            t.hosts << h;
        }
        for (Party& p : t.parties) {
            if (p.scheduler) p.scheduler->host = "a";
            for (ListeningRole& r : p.servers) r.host = "a";
            if (p.masterWorker) p.masterWorker->host = "a";
            if (p.stateService) p.stateService->host = "a";
            for (WorkerGroup& g : p.workers) g.host = "a";
        }
        t.parties[0].servers[0].host = "b";
        t.training.faultPolicy = "continue";
        d->setTopology(t);
        QVERIFY2(d->isValid(), qPrintable(d->issues().isEmpty() ? QString() : d->issues().first().toString()));
        QTest::mouseClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          d->view()->mapFromScene(centerOf(*d, {ElementRef::Kind::Server, "central", {}, 0})));
        auto* standby = qobject_cast<QComboBox*>(d->properties()->field("role_standby_host"));
        QVERIFY(standby);
        QCOMPARE(standby->currentText(), QStringLiteral("none"));
        standby->setFocus();
        for (int i = 0; i < 3; ++i) QTest::keyClick(standby, Qt::Key_Down);  // none → a → b → c, as the keyboard would
        QCOMPARE(d->topology().parties[0].servers[0].standbyHost, QStringLiteral("c"));
        QVERIFY(d->isValid());
        const TopologyLoad cli = TopologyReader::readJson(TopologyWriter::toJson(d->topology()));
        QVERIFY2(cli.ok(), qPrintable(cli.errorText()));
        QCOMPARE(cli.topology->node("central/global_server0")->standbyHost, QStringLiteral("c"));
        QTest::mouseClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          d->view()->mapFromScene(centerOf(*d, {ElementRef::Kind::Server, "party1", {}, 0})));
        QVERIFY(d->properties()->field("role_port") && !d->properties()->field("role_standby_host"));
        // The master has one too; a group of workers has none.
        QTest::mouseClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          d->view()->mapFromScene(centerOf(*d, {ElementRef::Kind::MasterWorker, "central", {}, 0})));
        standby = qobject_cast<QComboBox*>(d->properties()->field("role_standby_host"));
        QVERIFY(standby);
        standby->setFocus();
        for (int i = 0; i < 2; ++i) QTest::keyClick(standby, Qt::Key_Down);  // none → a → b
        QCOMPARE(d->topology().parties[0].masterWorker->standbyHost, QStringLiteral("b"));
        QVERIFY2(d->isValid(), qPrintable(d->issues().isEmpty() ? QString() : d->issues().first().toString()));
        QCOMPARE(TopologyReader::readJson(TopologyWriter::toJson(d->topology())).topology->node("central/master_worker")->standbyHost,
                 QStringLiteral("b"));
        // So has ESync's state service.
        QTest::mouseClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          d->view()->mapFromScene(centerOf(*d, {ElementRef::Kind::StateService, "central", {}, 0})));
        standby = qobject_cast<QComboBox*>(d->properties()->field("role_standby_host"));
        QVERIFY(standby);
        standby->setFocus();
        for (int i = 0; i < 3; ++i) QTest::keyClick(standby, Qt::Key_Down);  // none → a → b → c
        QCOMPARE(d->topology().parties[0].stateService->standbyHost, QStringLiteral("c"));
        QVERIFY2(d->isValid(), qPrintable(d->issues().isEmpty() ? QString() : d->issues().first().toString()));
        QCOMPARE(TopologyReader::readJson(TopologyWriter::toJson(d->topology())).topology->parties[0].stateService->standbyHost,
                 QStringLiteral("c"));
        QTest::mouseClick(d->view()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          d->view()->mapFromScene(centerOf(*d, {ElementRef::Kind::Workers, "party1", {}, 0})));
        QVERIFY(d->properties()->field("role_count") && !d->properties()->field("role_standby_host"));
    }

    // Every broken topology of the reader's and the registries' tables that the designer can open
    // (a well-formed document) is flagged by it, with the issue `hips validate` reports, at its path.
    void theDesignerFlagsEveryBrokenTopologyOfTheTables() {
        int opened = 0;
        for (const test::BrokenCase& c : test::topologyBrokenCases() + test::registryBrokenCases()) {
            TopologyLoad cli;
            QVERIFY2(test::missingIssue(c, &cli).isEmpty(), c.name);  // what `hips validate` says
            if (!cli.draft) continue;  // not even well-formed: the designer refuses to open it, as the CLI does
            d->setTopology(*cli.draft);
            ++opened;
            QVERIFY2(!d->isValid(), c.name);
            const bool found = std::any_of(d->issues().begin(), d->issues().end(), [&](const TopologyIssue& i) {
                return i.path == QLatin1String(c.path) && i.message.contains(QLatin1String(c.message));
            });
            QVERIFY2(found, qPrintable(QStringLiteral("%1: the designer did not report %2 %3").arg(c.name, c.path, c.message)));
        }
        QVERIFY(opened > 50);
    }

    // The designer flags what `hips validate` refuses, also for settings edited in the panel
    // (local_epochs set while local_iters is too was once "ready to run", then failed at once).
    void theDesignerChecksWhatValidateChecks() {
        d->scene()->clearSelection();
        auto* epochs = qobject_cast<QSpinBox*>(d->properties()->field("local_epochs"));
        QVERIFY(epochs);
        epochs->setValue(1);
        QVERIFY(!d->isValid());
        QVERIFY2(d->issues().value(0).toString().contains("set exactly one of local_iters and local_epochs"),
                 qPrintable(d->issues().value(0).toString()));
        const TopologyLoad cli = TopologyReader::readJson(TopologyWriter::toJson(d->topology()));
        QCOMPARE(cli.issues.size(), d->issues().size());  // what the CLI would say of the saved file
    }

    void aDragIsOneUndoStepAndKeepsThePosition() {
        const ElementRef party1{ElementRef::Kind::Party, "party1"};
        const QPointF before = d->scene()->item(party1)->pos();
        const QPointF grab = d->scene()->item(party1)->sceneBoundingRect().topLeft() + QPointF(60, 10);  // the title bar
        drag(*d, grab, grab + QPointF(150, 300));  // below the row, where nothing is
        QCOMPARE(d->undoStack()->count(), 1);
        const QPointF after = edits::partyPosition(d->topology(), "party1");
        QVERIFY(std::abs(after.x() - (before.x() + 150)) < 3 && std::abs(after.y() - (before.y() + 300)) < 3);
        QCOMPARE(d->scene()->item(party1)->pos(), after);  // the rebuilt scene keeps it
        d->undoStack()->undo();
        QCOMPARE(d->scene()->item(party1)->pos(), before);
    }

    // A click whose hand moves a few pixels is a click: no undo step ("Move role" to its own
    // host, which also sent the group to the end of its party's), and the chip back in place.
    void aNudgedRoleStaysAClick() {
        const ElementRef workers{ElementRef::Kind::Workers, "party1", {}, 0};
        const QPointF before = d->scene()->item(workers)->pos();
        const QPointF at = centerOf(*d, workers);  // 3 and 2 pixels on the screen
        drag(*d, at, d->view()->mapToScene(d->view()->mapFromScene(at) + QPoint(3, 2)));
        QCOMPARE(d->undoStack()->count(), 0);
        QCOMPARE(d->scene()->item(workers)->pos(), before);
    }

    void aRoleDraggedOntoAnotherPartyIsRehomed() {
        const ElementRef workers{ElementRef::Kind::Workers, "party1", {}, 0};
        drag(*d, centerOf(*d, workers), centerOf(*d, {ElementRef::Kind::HostGroup, "party2", "local"}));
        QCOMPARE(d->topology().party("party1")->workers.size(), 0);
        QCOMPARE(d->topology().party("party2")->workers.size(), 2);
        QVERIFY(!d->isValid());  // party1 has no workers now: marked, not silently accepted
        QVERIFY(d->scene()->item({ElementRef::Kind::Party, "party1"})->hasIssue());
    }

    void anInvalidTopologyMarksItsItemAndDisablesStart() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath("history.sqlite"));
        window.show();
        QVERIFY(window.openTopology(kDefault));
        QPushButton* start = window.runPanel()->startButton();
        QVERIFY(start->isEnabled());
        Designer* designer = window.designer();
        designer->scene()->selectElements({{ElementRef::Kind::Server, "party1", {}, 0}});
        auto* port = qobject_cast<QSpinBox*>(designer->properties()->field("role_port"));
        QVERIFY(port);
        port->setValue(9101);  // the global server's port on the same host
        QVERIFY(!designer->isValid());
        QVERIFY(!start->isEnabled());
        QVERIFY(start->toolTip().contains("9101"));
        DesignerItem* server = designer->scene()->item({ElementRef::Kind::Server, "party1", {}, 0});
        QVERIFY(server->hasIssue());
        QVERIFY(server->toolTip().contains("already used"));
        QVERIFY(designer->issueList()->item(0)->text().contains("$.parties[1].roles.servers[0].port"));
        designer->undoStack()->undo();
        QVERIFY(start->isEnabled());
        QVERIFY(!designer->scene()->item({ElementRef::Kind::Server, "party1", {}, 0})->hasIssue());
    }

    // A host's issue marks its box in every party that uses it, and a click on the message
    // selects the host (it selected nothing, and nothing was marked).
    void aHostsIssueIsMarkedAndItsMessageSelectsIt() {
        click(*d, titleOf(*d, {ElementRef::Kind::HostGroup, "party1", "local"}));
        typeInto(qobject_cast<QLineEdit*>(d->properties()->field("host_address")), "a/b");
        for (const char* party : {"central", "party1", "party2"})
            QVERIFY2(d->scene()->item({ElementRef::Kind::HostGroup, party, "local"})->hasIssue(), party);
        QVERIFY(!d->scene()->item({ElementRef::Kind::Party, "party1"})->hasIssue());
        d->scene()->clearSelection();
        QListWidgetItem* message = d->issueList()->item(0);
        QVERIFY2(message->text().startsWith("$.hosts[0].address"), qPrintable(message->text()));
        QTest::mouseClick(d->issueList()->viewport(), Qt::LeftButton, {}, d->issueList()->visualItemRect(message).center());
        QCOMPARE(d->scene()->selectedElements(), QList<ElementRef>({{ElementRef::Kind::HostGroup, "central", "local"}}));
    }

    // Ctrl+Z and Ctrl+Shift+Z pressed in a property field after Tab committed its edit: the
    // topology's undo and redo (the field took the keys for its own text, with nothing to undo).
    void undoAndRedoWorkFromAFocusedPropertyField() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath("history.sqlite"));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openTopology(kDefault));
        Designer* designer = window.designer();
        const auto workers = [&] { return designer->topology().party("party1")->workers.value(0).count; };
        designer->scene()->selectElements({{ElementRef::Kind::Workers, "party1", {}, 0}});
        auto* count = qobject_cast<QSpinBox*>(designer->properties()->field("role_count"));
        QVERIFY(count);
        count->setFocus();
        count->selectAll();
        QTest::keyClicks(count, "5");
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(workers(), 5);
        QWidget* field = QApplication::focusWidget();
        QVERIFY(field && designer->properties()->isAncestorOf(field));
        // (The platform's keys: Ctrl+Z and Ctrl+Shift+Z on X11, Ctrl+Y for redo in the offscreen tests.)
        const QKeyCombination undo = QKeySequence(QKeySequence::Undo)[0], redo = QKeySequence(QKeySequence::Redo)[0];
        QTest::keyClick(field, undo.key(), undo.keyboardModifiers());
        QCOMPARE(workers(), 2);
        field = designer->properties()->field("role_count");  // (the panel shows the element again)
        QVERIFY(field);
        field->setFocus();
        QTest::keyClick(field, redo.key(), redo.keyboardModifiers());
        QCOMPARE(workers(), 5);
    }

    void saveWritesWhatTheCliReads() {
        QTemporaryDir dir;
        dropFromPalette(*d, PaletteItem::Workers, centerOf(*d, {ElementRef::Kind::HostGroup, "party1", "local"}));
        QString error;
        QVERIFY2(d->saveFile(dir.filePath("t.json"), &error), qPrintable(error));
        const TopologyLoad load = TopologyReader::readFile(dir.filePath("t.json"));
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->trainingWorkerCount(), 5);
        QVERIFY(d->undoStack()->isClean());
    }

    // Saving over a topology on a full disk says so and leaves the file as it was: it used to be
    // reported saved and left empty (the JSON fitted in QSaveFile's buffer, whose flush failed).
    void aFullDiskKeepsTheSavedTopology() {
        const auto readBytes = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        QTemporaryDir dir;
        SmallDisk disk(dir.filePath("small"), "size=64k,mode=0755");
        if (!disk.mounted()) QSKIP(qPrintable(disk.why()));
        QString error;
        QVERIFY2(d->saveFile(disk.filePath("t.json"), &error), qPrintable(error));
        const QByteArray saved = readBytes(disk.filePath("t.json"));
        QFile filler(disk.filePath("filler"));
        QVERIFY(filler.open(QIODevice::WriteOnly | QIODevice::Unbuffered));
        while (filler.write(QByteArray(4096, 'x')) == 4096) {
        }
        dropFromPalette(*d, PaletteItem::Workers, centerOf(*d, {ElementRef::Kind::HostGroup, "party1", "local"}));
        QVERIFY(!d->saveFile(disk.filePath("t.json"), &error));
        QVERIFY2(error.contains("t.json") && error.contains("no space left"), qPrintable(error));
        QCOMPARE(readBytes(disk.filePath("t.json")), saved);
        QVERIFY(!d->undoStack()->isClean());  // the change is not marked saved
    }
};

QTEST_MAIN(DesignerTest)
#include "tst_designer.moc"
