// The designer's property panel as a user edits it: typing into one field is one undo step, the
// wheel scrolls past fields nobody clicked into, and every value a file may hold shows as it is.
#include "Designer.h"
#include "DesignerFixture.h"
#include "DesignerScene.h"
#include "PropertyPanel.h"
#include "TopologyEdits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include "TopologyWriter.h"
#include <QLineEdit>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QDoubleSpinBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;

using test::kDefaultTopology;

class PropertiesTest : public QObject {
    Q_OBJECT
    std::unique_ptr<Designer> d;

private Q_SLOTS:
    void init() { test::openShownDesigner(d); }
    void cleanup() { d.reset(); }

    // Ticking "Central party" on another party made two central parties and a topology that would
    // not run; it moves the centre: the master worker and state service follow, the old central
    // party trains like the others, and one undo puts everything back.
    void makingAnotherPartyCentralMovesTheCentre() {
        Topology withDevice = d->topology();
        withDevice.parties[0].masterWorker->device = "cuda:1";  // it moves as it is
        d->setTopology(withDevice);
        d->undoStack()->clear();
        d->scene()->selectElements({{ElementRef::Kind::Party, "party2"}});
        auto* central = qobject_cast<QCheckBox*>(d->properties()->field("party_central"));
        QVERIFY(central);
        QVERIFY(!central->isChecked());
        central->click();
        const Topology& t = d->topology();
        QVERIFY(t.party("party2")->central && !t.party("central")->central);
        QVERIFY(t.party("party2")->masterWorker && t.party("party2")->stateService);
        QVERIFY(!t.party("central")->masterWorker && !t.party("central")->stateService);
        QCOMPARE(t.party("party2")->masterWorker->device, QStringLiteral("cuda:1"));
        QCOMPARE(t.party("central")->workerCount(), 1);
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
        QCOMPARE(d->undoStack()->count(), 1);
        d->undoStack()->undo();
        QVERIFY(d->topology().party("central")->central && d->topology().party("central")->masterWorker);
        QVERIFY(!d->topology().party("party2")->central);
    }

    // A host renamed in its Id field takes every reference with it: the shipped topology's state
    // service stayed on "local", marked red, and Start all was refused.
    void aRenamedHostTakesEveryRoleOnIt() {
        Topology spare = d->topology();
        spare.hosts.append(Host{});
        spare.hosts.last().id = "spare";
        for (Party& p : spare.parties)
            if (p.central) p.servers[0].standbyHost = "spare";
        QVERIFY(edits::renameHost(spare, "spare", "reserve").isEmpty());
        QCOMPARE(spare.party("central")->servers[0].standbyHost, QStringLiteral("reserve"));
        test::click(*d, test::titleOf(*d, {ElementRef::Kind::HostGroup, "central", "local"}));
        auto* id = qobject_cast<QLineEdit*>(d->properties()->field("host_id"));
        QVERIFY(id);
        test::typeInto(id, "lab");
        const Party* central = d->topology().party("central");
        QVERIFY(d->topology().host("lab") && !d->topology().host("local"));
        QCOMPARE(central->stateService->host, QStringLiteral("lab"));
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
    }

    // A setting that runs but trains poorly gets a note under the validation; Start stays possible.
    // The data folder's path is read whole, on a row of its own: beside the long labels its field
    // was a tenth of the panel, showing "ts/fashion-mnist".
    void theDataFolderShowsItsWholePath() {
        d->scene()->clearSelection();
        auto* dir = qobject_cast<QLineEdit*>(d->properties()->field("data_dir"));
        QVERIFY(dir);
        QCOMPARE(dir->text(), QStringLiteral("/usr/share/datasets/fashion-mnist"));
        QTRY_VERIFY2(
            dir->width() > dir->fontMetrics().horizontalAdvance(dir->text()),
            qPrintable(
                QStringLiteral("%1 px for a path of %2 px").arg(dir->width()).arg(dir->fontMetrics().horizontalAdvance(dir->text()))));
    }

    // In mode local nothing is sent: the communication settings are greyed out, saying why, and
    // come back with their own help when the mode changes. Chosen with the keyboard, as a user does.
    void settingsTheModeIgnoresAreGreyedOut() {
        d->scene()->clearSelection();
        auto* mode = qobject_cast<QComboBox*>(d->properties()->field("mode"));
        QVERIFY(mode);
        const QString before = d->topology().training.mode;
        mode->setFocus();
        mode->setCurrentText("fedavg");
        QVERIFY(d->properties()->field("compression")->isEnabled());
        const int local = mode->findText("local");
        QVERIFY(local >= 0);
        while (mode->currentIndex() < local) QTest::keyClick(mode, Qt::Key_Down);
        QCOMPARE(d->topology().training.mode, QStringLiteral("local"));
        QWidget* codec = d->properties()->field("compression");
        QVERIFY(codec && !codec->isEnabled());
        QVERIFY2(codec->toolTip().contains("mode local trains the master worker alone"), qPrintable(codec->toolTip()));
        QVERIFY(d->properties()->field("learning_rate")->isEnabled());
        mode = qobject_cast<QComboBox*>(d->properties()->field("mode"));
        mode->setCurrentText("fedavg");
        codec = d->properties()->field("compression");
        QVERIFY(codec->isEnabled());
        QVERIFY(!codec->toolTip().contains("mode local"));
        qobject_cast<QComboBox*>(d->properties()->field("mode"))->setCurrentText(before);
    }

    void aPoorSettingIsNotedNotRefused() {
        d->scene()->clearSelection();
        auto* mode = qobject_cast<QComboBox*>(d->properties()->field("mode"));
        auto* codec = qobject_cast<QComboBox*>(d->properties()->field("compression"));
        QVERIFY(mode && codec);
        mode->setCurrentText("ssgd");
        codec = qobject_cast<QComboBox*>(d->properties()->field("compression"));  // the panel is rebuilt on each edit
        QVERIFY(codec);
        codec->setCurrentText("2bit");
        QCOMPARE(d->topology().training.compression, QStringLiteral("2bit"));
        QVERIFY(d->isValid());
        const QList<QListWidgetItem*> notes = d->issueList()->findItems("2bit under mode ssgd", Qt::MatchContains);
        QCOMPARE(notes.size(), 1);
        QVERIFY(d->issueList()->findItems("No problems: ready to run", Qt::MatchExactly).size() == 1);

        // This machine lacks the data folder: said, and no longer "ready to run"; Start stays possible.
        auto* folder = qobject_cast<QLineEdit*>(d->properties()->field("data_dir"));
        QVERIFY(folder);
        folder->setText("/nonexistent/fashion-mnist");
        QVERIFY(QMetaObject::invokeMethod(folder, "editingFinished"));
        QCOMPARE(d->topology().training.dataDir, QStringLiteral("/nonexistent/fashion-mnist"));
        QVERIFY(d->isValid());
        QCOMPARE(d->issueList()
                     ->findItems("/nonexistent/fashion-mnist/train-images-idx3-ubyte.gz is missing on this machine", Qt::MatchContains)
                     .size(),
                 1);
        QCOMPARE(d->issueList()->findItems("No problems in the topology; see the note below", Qt::MatchExactly).size(), 1);
    }

    // transport_security is chosen in the training settings, explained, and kept in the topology.
    void transportSecurityIsChosen() {
        d->scene()->clearSelection();
        auto* security = qobject_cast<QComboBox*>(d->properties()->field("transport_security"));
        QVERIFY(security);
        QCOMPARE(security->currentText(), QStringLiteral("sealed"));  // the default
        QVERIFY(security->toolTip().contains("AES-256-GCM"));
        security->setCurrentText("curve");
        QCOMPARE(d->topology().training.transportSecurity, QStringLiteral("curve"));
        QVERIFY(d->isValid());
        security = qobject_cast<QComboBox*>(d->properties()->field("transport_security"));  // the panel is rebuilt on each edit
        QCOMPARE(security->currentText(), QStringLiteral("curve"));
    }

    void typingIntoOneFieldIsOneStep() {
        d->scene()->clearSelection();
        auto* lr = qobject_cast<QDoubleSpinBox*>(d->properties()->field("learning_rate"));
        QVERIFY(lr);
        lr->setValue(0.1);
        lr->setValue(0.12);
        lr->setValue(0.125);
        QCOMPARE(d->undoStack()->count(), 1);
        QCOMPARE(d->topology().training.learningRate, 0.125);
        d->undoStack()->undo();
        QCOMPARE(d->topology().training.learningRate, 0.05);
    }

    // The wheel over a field nobody clicked into scrolls the panel: scrolling down the training
    // settings changed the global aggregation to bulyan on the way. Once clicked, it edits.
    void theWheelScrollsPastFieldsItDoesNotEdit() {
        d->scene()->clearSelection();
        auto* aggregation = qobject_cast<QComboBox*>(d->properties()->field("aggregation"));
        QVERIFY(aggregation);
        auto* scroll = d->properties()->findChild<QScrollArea*>();
        QVERIFY(scroll);
        const int scrolledBefore = scroll->verticalScrollBar()->value();
        const auto wheelDown = [&] {
            const QPointF at = QPointF(aggregation->rect().center());
            QWheelEvent wheel(at, aggregation->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                              false);
            QApplication::sendEvent(aggregation, &wheel);
        };
        wheelDown();
        QCOMPARE(aggregation->currentText(), QStringLiteral("fedavg"));
        QCOMPARE(d->undoStack()->count(), 0);
        QVERIFY(scroll->verticalScrollBar()->value() > scrolledBefore);
        aggregation->setFocus();
        QTRY_VERIFY(aggregation->hasFocus());
        wheelDown();
        QVERIFY(aggregation->currentText() != QStringLiteral("fedavg"));
        QCOMPARE(d->undoStack()->count(), 1);
    }

    // Every value a file may hold shows as it is and stays as it is: a learning rate of 1e-5 showed
    // (and became, at the next arrow) 0.0000, and 500,000 rounds showed 100,000. Typed in the
    // notation a user would type, it is taken exactly.
    void fieldsShowWhatTheFileHolds() {
        QTemporaryDir dir;
        QFile file(dir.filePath("fine.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QFile original(kDefaultTopology);
        QVERIFY(original.open(QIODevice::ReadOnly));
        file.write(original.readAll()
                       .replace("\"learning_rate\": 0.05", "\"learning_rate\": 1e-05")
                       .replace("\"rounds\": 20", "\"rounds\": 500000")
                       .replace("\"momentum\": 0.9", "\"momentum\": 0.9999"));
        file.close();
        QString error;
        QVERIFY2(d->openFile(file.fileName(), &error), qPrintable(error));
        d->scene()->clearSelection();
        QCOMPARE(d->topology().training.learningRate, 1e-5);
        auto* lr = qobject_cast<QDoubleSpinBox*>(d->properties()->field("learning_rate"));
        QVERIFY(lr);
        QCOMPARE(lr->value(), 1e-5);
        QCOMPARE(lr->text(), QStringLiteral("1e-05"));
        QCOMPARE(qobject_cast<QDoubleSpinBox*>(d->properties()->field("momentum"))->value(), 0.9999);
        QCOMPARE(qobject_cast<QSpinBox*>(d->properties()->field("rounds"))->value(), 500000);
        lr->setFocus();
        lr->selectAll();
        QTest::keyClicks(lr, "2.5e-7");
        QTest::keyClick(lr, Qt::Key_Return);
        QCOMPARE(d->topology().training.learningRate, 2.5e-7);
        QTest::keyClicks(lr, "x");  // refused at the keystroke
        QCOMPARE(lr->text(), QStringLiteral("2.5e-07"));
    }

    // A field emptied where the file needs a value is not taken, and says why: a name, a host's
    // address (the designer saved them empty, then refused to open the file).
    void aFieldTheFileNeedsIsNotEmptied() {
        d->scene()->clearSelection();
        QSignalSpy refusals(d->properties(), &PropertyPanel::refused);
        auto* name = qobject_cast<QLineEdit*>(d->properties()->field("name"));
        QVERIFY(name);
        const QString before = d->topology().name;
        name->clear();
        Q_EMIT name->editingFinished();
        QCOMPARE(d->topology().name, before);
        QCOMPARE(refusals.size(), 1);
        QVERIFY2(refusals[0][0].toString().contains("$.name"), qPrintable(refusals[0][0].toString()));
        QCOMPARE(qobject_cast<QLineEdit*>(d->properties()->field("name"))->text(), before);  // shown as it is

        d->scene()->selectElements({{ElementRef::Kind::HostGroup, "party1", "local"}});
        auto* address = qobject_cast<QLineEdit*>(d->properties()->field("host_address"));
        QVERIFY(address);
        address->clear();
        Q_EMIT address->editingFinished();
        QCOMPARE(d->topology().host("local")->address, QStringLiteral("127.0.0.1"));
        QCOMPARE(refusals.size(), 2);
        address = qobject_cast<QLineEdit*>(d->properties()->field("host_address"));
        address->setText("127.0.0.2");  // an edit the file takes is taken
        Q_EMIT address->editingFinished();
        QCOMPARE(d->topology().host("local")->address, QStringLiteral("127.0.0.2"));
        QCOMPARE(refusals.size(), 2);
    }

    // A party's own data: its format from the registry brings that format's option fields; the
    // path and an option typed with the keyboard go into the topology; the validation then asks
    // for the other party's data and the master's test set; one undo a field.
    void aPartysDataIsTypedIn() {
        d->scene()->selectElements({{ElementRef::Kind::Party, "party1"}});
        auto* format = qobject_cast<QComboBox*>(d->properties()->field("party_data_format"));
        QVERIFY(format);
        QVERIFY(!d->properties()->field("party_data_path"));  // no source: no path to type
        format->setCurrentText("npz");
        QCOMPARE(d->topology().party("party1")->data->format, QStringLiteral("npz"));
        auto* path = qobject_cast<QLineEdit*>(d->properties()->field("party_data_path"));
        auto* x = qobject_cast<QLineEdit*>(d->properties()->field("party_data_x"));
        QVERIFY(path && x);
        QCOMPARE(x->placeholderText(), QStringLiteral("x"));  // the registry's default
        QVERIFY(!d->properties()->field("party_data_label"));  // csv's, not npz's
        QTest::mouseClick(path, Qt::LeftButton);
        QTest::keyClicks(path, "/data/p1.npz");
        QTest::keyClick(path, Qt::Key_Tab);
        QTest::keyClicks(x, "images");
        QTest::keyClick(x, Qt::Key_Tab);
        const DataSource* source = d->topology().dataSourceOf("party1", "local");
        QVERIFY(source);
        QCOMPARE(source->path, QStringLiteral("/data/p1.npz"));
        QCOMPARE(source->option("x"), QStringLiteral("images"));
        QVERIFY(!d->isValid());
        QVERIFY(!d->issueList()->findItems("party 'party2' trains but has no data of its own", Qt::MatchContains).isEmpty());
        QVERIFY(!d->issueList()->findItems("declare the master's test set", Qt::MatchContains).isEmpty());
        QCOMPARE(d->undoStack()->count(), 3);
        d->undoStack()->undo();
        QVERIFY(d->topology().party("party1")->data->option("x").isEmpty());
        d->undoStack()->undo();
        d->undoStack()->undo();
        QVERIFY(!d->topology().party("party1")->data);
        QVERIFY(d->isValid());
    }

    // A party's transport from the collective registry brings that collective's fields; a
    // setting of the old one goes with it; a conflicting run setting is refused by name.
    void aPartysTransportIsChosenWithItsFields() {
        d->scene()->selectElements({{ElementRef::Kind::Party, "party1"}});
        auto* transport = qobject_cast<QComboBox*>(d->properties()->field("party_transport"));
        QVERIFY(transport && transport->currentText() == "server");
        QVERIFY(!d->properties()->field("party_transport_chunk_kb"));  // a party server has no settings
        transport->setFocus();
        QTest::keyClick(transport, Qt::Key_Down);  // server → ring
        QCOMPARE(d->topology().party("party1")->transport, QStringLiteral("ring"));
        QVERIFY(d->isValid());
        test::typeInto(d->properties()->field("party_transport_chunk_kb"), "64");
        QCOMPARE(d->topology().party("party1")->transportParam("transport_chunk_kb"), 64.0);
        qobject_cast<QComboBox*>(d->properties()->field("party_transport"))->setCurrentText("gossip");
        QVERIFY(d->properties()->field("party_gossip_degree"));
        QCOMPARE(d->topology().party("party1")->transportParam("transport_chunk_kb"), 64.0);  // gossip's too: kept
        qobject_cast<QComboBox*>(d->properties()->field("party_transport"))->setCurrentText("server");
        QVERIFY(d->topology().party("party1")->transportParams.isEmpty());  // not a setting of a party server
        qobject_cast<QComboBox*>(d->properties()->field("party_transport"))->setCurrentText("butterfly");
        QVERIFY(!TopologyWriter::toJsonObject(d->topology())["parties"].toArray()[1].toObject().value("transport").isUndefined());
        d->scene()->clearSelection();
        qobject_cast<QComboBox*>(d->properties()->field("mode"))->setCurrentText("asgd");
        QVERIFY(!d->isValid());
        QVERIFY(!d->issueList()->findItems("mode asgd does not sum a party's workers", Qt::MatchContains).isEmpty());
    }

    // A party's launcher: Slurm's fields appear with it, are written into the file, and a setting
    // the launcher refuses is marked; back on SSH the party is as it was.
    void aPartysLauncherIsChosenWithItsFields() {
        d->scene()->selectElements({{ElementRef::Kind::Party, "party1"}});
        auto* launcher = qobject_cast<QComboBox*>(d->properties()->field("party_launcher"));
        QVERIFY(launcher && launcher->currentText() == "ssh");
        QVERIFY(!d->properties()->field("party_partition"));
        launcher->setFocus();
        QTest::keyClick(launcher, Qt::Key_Down);  // ssh → slurm
        QVERIFY(d->topology().party("party1")->slurm);
        QVERIFY(d->properties()->field("party_partition"));
        test::typeInto(d->properties()->field("party_partition"), "gpu");
        test::typeInto(d->properties()->field("party_gpus_per_node"), "2");
        QCOMPARE(d->topology().party("party1")->slurm->partition, QStringLiteral("gpu"));
        QCOMPARE(d->topology().party("party1")->slurm->gpusPerNode, 2);
        const QJsonObject written = TopologyWriter::toJsonObject(d->topology())["parties"].toArray()[1].toObject()["launcher"].toObject();
        QCOMPARE(written["kind"].toString(), QStringLiteral("slurm"));
        QCOMPARE(written["partition"].toString(), QStringLiteral("gpu"));
        test::typeInto(d->properties()->field("party_sbatch_options"), "--output=/tmp/x");
        QVERIFY(!d->isValid());
        QVERIFY(!d->issueList()->findItems("not an sbatch option", Qt::MatchContains).isEmpty());
        qobject_cast<QComboBox*>(d->properties()->field("party_launcher"))->setCurrentText("ssh");
        QVERIFY(!d->topology().party("party1")->slurm);
        QVERIFY(d->isValid());
    }

    // "Check data" reads the party's source (on this machine, off the GUI thread) and shows its
    // counts; a path that is not there says so.
    void checkDataShowsTheCountsOfThePartysSource() {
        QTemporaryDir dir;
        QFile csv(dir.filePath("p1.csv"));
        QByteArray table = "label";  // (the default model's 28 x 28 values a row: what it takes)
        for (int c = 0; c < 28 * 28; ++c) table += ",f" + QByteArray::number(c);
        for (int label : {0, 1, 1, 0, 1}) table += "\n" + QByteArray::number(label) + QByteArray(",0.5").repeated(28 * 28);
        QVERIFY(csv.open(QIODevice::WriteOnly) && csv.write(table + "\n") > 0);
        csv.close();
        d->scene()->selectElements({{ElementRef::Kind::Party, "party1"}});
        qobject_cast<QComboBox*>(d->properties()->field("party_data_format"))->setCurrentText("csv");
        auto* path = qobject_cast<QLineEdit*>(d->properties()->field("party_data_path"));
        QVERIFY(path);
        QTest::mouseClick(path, Qt::LeftButton);
        QTest::keyClicks(path, csv.fileName());
        QTest::keyClick(path, Qt::Key_Tab);
        auto* check = d->properties()->findChild<QPushButton*>("party_data_check");
        auto* counts = d->properties()->findChild<QLabel*>("party_data_counts");
        QVERIFY(check && counts);
        QTest::mouseClick(check, Qt::LeftButton);
        QTRY_COMPARE(counts->text(), QStringLiteral("5 samples of 784; by class: 0: 2, 1: 3"));
        QVERIFY(check->isEnabled());

        path = qobject_cast<QLineEdit*>(d->properties()->field("party_data_path"));
        QTest::mouseClick(path, Qt::LeftButton);
        QTest::keyClick(path, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(path, dir.filePath("gone.csv"));
        QTest::keyClick(path, Qt::Key_Tab);
        check = d->properties()->findChild<QPushButton*>("party_data_check");
        counts = d->properties()->findChild<QLabel*>("party_data_counts");
        QTest::mouseClick(check, Qt::LeftButton);
        QTRY_VERIFY2(counts->text().startsWith("cannot use it: " + dir.filePath("gone.csv") + " does not exist"),
                     qPrintable(counts->text()));
    }

    // The model can be the user's TorchScript file, with its input and classes.
    void aTorchScriptModelIsChosen() {
        d->scene()->clearSelection();
        auto* model = qobject_cast<QComboBox*>(d->properties()->field("model"));
        QVERIFY(model && model->findText("torchscript") >= 0);
        model->setCurrentText("torchscript");
        auto* file = qobject_cast<QLineEdit*>(d->properties()->field("model_file"));
        auto* shape = qobject_cast<QLineEdit*>(d->properties()->field("input_shape"));
        QVERIFY(file && shape);
        QVERIFY(!d->isValid());  // no file yet
        file->setText("/models/net.pt");
        Q_EMIT file->editingFinished();
        shape->setText("3, 32, 32");
        Q_EMIT shape->editingFinished();
        QCOMPARE(d->topology().training.modelFile, QStringLiteral("/models/net.pt"));
        QCOMPARE(d->topology().training.inputShape, (QList<int>{3, 32, 32}));
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
        shape->setText("3 by 32");
        Q_EMIT shape->editingFinished();
        QCOMPARE(d->topology().training.inputShape, (QList<int>{3, 32, 32}));  // refused, kept
    }

    // The task: a regression has outputs (1 by default) in place of classes, and back.
    void theTaskSwitchesClassesAndOutputs() {
        d->scene()->clearSelection();
        auto* task = qobject_cast<QComboBox*>(d->properties()->field("task"));
        QVERIFY(task && task->findText("regression") >= 0);
        QVERIFY(d->properties()->field("classes") && !d->properties()->field("outputs"));
        task->setCurrentText("regression");
        QVERIFY(d->topology().training.regression());
        QCOMPARE(d->topology().training.classes, 1);
        QVERIFY(d->properties()->field("outputs") && !d->properties()->field("classes"));
        task = qobject_cast<QComboBox*>(d->properties()->field("task"));
        task->setCurrentText("classification");
        QVERIFY(!d->topology().training.regression());
        QCOMPARE(d->topology().training.classes, 10);
    }

    // Differential privacy from the training fields, by the keyboard: its own fields come with
    // it, a noise of 0 is "auto" (refused until a target ε is typed), and the file says so.
    void privacyIsChosenWithItsFields() {
        d->scene()->clearSelection();
        auto* privacy = qobject_cast<QComboBox*>(d->properties()->field("privacy"));
        QVERIFY(privacy && privacy->currentText() == "off" && !d->properties()->field("clip_norm"));
        auto* scroll = d->properties()->findChild<QScrollArea*>();
        scroll->ensureWidgetVisible(privacy);  // scrolled down to it, as a user does
        const int scrolled = scroll->verticalScrollBar()->value();
        QVERIFY(scrolled > 0);
        privacy->setFocus();
        QTest::keyClick(privacy, Qt::Key_Down);  // off → party
        QVERIFY(d->topology().training.privacy && d->topology().training.privacy->atParty());
        // The panel, rebuilt with the new fields, stays there instead of jumping to its top.
        QTRY_VERIFY(!d->properties()->field("privacy")->visibleRegion().isEmpty());
        QVERIFY(scroll->verticalScrollBar()->value() > 0);
        QCOMPARE(scroll->horizontalScrollBar()->value(), 0);  // its label too
        for (const char* name : {"clip_norm", "noise_multiplier", "delta", "target_epsilon"}) QVERIFY2(d->properties()->field(name), name);
        test::typeInto(d->properties()->field("noise_multiplier"), "0");
        QVERIFY(d->topology().training.privacy->autoNoise);
        QVERIFY(!d->isValid());
        QVERIFY2(d->issues().value(0).toString().contains("target_epsilon"), qPrintable(d->issues().value(0).toString()));
        test::typeInto(d->properties()->field("target_epsilon"), "8");
        QVERIFY2(d->isValid(), qPrintable(d->issues().value(0).toString()));
        const QJsonObject written =
            QJsonDocument::fromJson(TopologyWriter::toJson(d->topology())).object()["training"].toObject()["privacy"].toObject();
        QCOMPARE(written["noise_multiplier"].toString(), QString("auto"));
        QCOMPARE(written["target_epsilon"].toDouble(), 8.0);
        privacy = qobject_cast<QComboBox*>(d->properties()->field("privacy"));
        privacy->setCurrentText("off");
        QVERIFY(!d->topology().training.privacy && !d->properties()->field("clip_norm"));
    }

    // "Check model" loads the TorchScript file as the trainers will (hips-trainer model-info) and
    // shows its size; a file that is not one says why.
    void checkModelShowsTheModelsSize() {
        QTemporaryDir dir;
        const QString model = dir.filePath("net.pt");
        QProcess python;
        python.start("/usr/bin/python3", {"-c",
                                          "import torch, sys; torch.jit.save(torch.jit.script(torch.nn.Sequential("
                                          "torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))), sys.argv[1])",
                                          model});
        QVERIFY(python.waitForFinished(120000) && python.exitCode() == 0);
        d->scene()->clearSelection();
        qobject_cast<QComboBox*>(d->properties()->field("model"))->setCurrentText("torchscript");
        auto* file = qobject_cast<QLineEdit*>(d->properties()->field("model_file"));
        QVERIFY(file);
        file->setText(model);
        Q_EMIT file->editingFinished();
        auto* check = d->properties()->findChild<QPushButton*>("model_check");
        auto* said = d->properties()->findChild<QLabel*>("model_counts");
        QVERIFY(check && said);
        QTest::mouseClick(check, Qt::LeftButton);
        // Linear(3, 2) and BatchNorm1d(2): 6 + 2 + 2 + 2 trainable, running mean and variance.
        QTRY_VERIFY2_WITH_TIMEOUT(said->text().startsWith("12 trainable parameters in 4 tensors (and 2 floating buffers); SHA-256 "),
                                  qPrintable(said->text()), 60000);
        file = qobject_cast<QLineEdit*>(d->properties()->field("model_file"));
        file->setText(dir.filePath("gone.pt"));
        Q_EMIT file->editingFinished();
        check = d->properties()->findChild<QPushButton*>("model_check");
        said = d->properties()->findChild<QLabel*>("model_counts");
        QTest::mouseClick(check, Qt::LeftButton);
        QTRY_VERIFY2_WITH_TIMEOUT(said->text().startsWith("cannot load it: ") && said->text().contains("gone.pt"), qPrintable(said->text()),
                                  60000);
    }
};

QTEST_MAIN(PropertiesTest)
#include "tst_properties.moc"
