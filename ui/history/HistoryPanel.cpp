#include "HistoryPanel.h"

#include "LiteralText.h"
#include "ExportDialog.h"

#include "LiveChart.h"
#include "ReportWriter.h"
#include "TopologyReader.h"
#include "TopologyShape.h"
#include "ParallelCoordinates.h"
#include "RunSettings.h"
#include "Vocabulary.h"

#include <algorithm>
#include <QDateTime>
#include <QDir>
#include <QDesktopServices>
#include <QUrl>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QMenu>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <cmath>
#include <unistd.h>

namespace hips {

namespace {

const QList<int> kLabelColumns = {1, 10, 11};  // name, tags, notes: the user's, editable

// Distinct colours for overlaid runs.
QColor runColor(int i) {
    static const QList<QColor> colors = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                         QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                         QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f)};
    return colors[i % colors.size()];
}

// A numeric cell that sorts by value, not by text (QTableWidgetItem compares the text: run 99
// came before run 164, newest first).
class NumberItem final : public QTableWidgetItem {
public:
    bool operator<(const QTableWidgetItem& other) const override {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

// A setting as a cell shows it: a data source or a model as its compact JSON, not blank.
QTableWidgetItem* numberItem(double value, const QString& text) {
    auto* item = new NumberItem;
    item->setData(Qt::DisplayRole, text);
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

}  // namespace

HistoryPanel::HistoryPanel(QWidget* parent)
    : QWidget(parent),
      m_table(new QTableWidget),
      m_overlay(new LiveChart(tr("Test accuracy of the selected runs"), tr("accuracy"))),
      m_open(new QPushButton(tr("Show in charts"))),
      m_delete(new QPushButton(QIcon(QStringLiteral(":/icons/delete.svg")), tr("Delete"))),
      m_export(new QPushButton(QIcon(QStringLiteral(":/icons/report.svg")), tr("Export report…"))),
      m_reopen(new QPushButton(QIcon(QStringLiteral(":/icons/open.svg")), tr("Open topology"))),
      m_attach(new QPushButton(tr("Reattach"))),
      m_resume(new QPushButton(QIcon(QStringLiteral(":/icons/start.svg")), tr("Resume"))),
      m_folder(new QPushButton(QIcon(QStringLiteral(":/icons/open.svg")), tr("Open folder"))),
      m_filter(new QLineEdit),
      m_metric(new QComboBox),
      m_diff(new QTableWidget),
      m_groupBy(new QToolButton),
      m_compareTabs(new QTabWidget),
      m_parallel(new ParallelCoordinates) {
    const QStringList headers = {tr("Id"),          tr("Name"),   tr("Started"),           tr("Duration"), tr("Status"), tr("Best score"),
                                 tr("Final score"), tr("Rounds"), tr("MB across parties"), tr("Reason"),   tr("Tags"),   tr("Notes")};
    m_table->setColumnCount(int(headers.size()) + 1);  // and the grouping setting's values, when grouped
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setColumnHidden(kGroupColumn, true);
    for (int column : {5, 6})
        m_table->horizontalHeaderItem(column)->setToolTip(tr("Test accuracy; for a regression, test RMSE (lower is better)"));
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // The name, tags and notes are the user's: double-click (or F2) edits them in place.
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setTextElideMode(Qt::ElideMiddle);  // a long reason keeps its start and its end (whole in its tooltip)
    m_table->horizontalHeader()->setSectionResizeMode(
        9, QHeaderView::Stretch);  // the reason takes what is left, elided (whole in its tooltip)
    m_table->setSortingEnabled(true);
    auto* refreshButton = new QPushButton(tr("Refresh"));
    m_filter->setObjectName(QStringLiteral("history_filter"));
    m_filter->setPlaceholderText(tr("Filter: text, or settings as mode=esync learning_rate<0.1 slowdown>=2"));
    m_filter->setToolTip(
        tr("Every word must match: text in the id, name, status, reason, tags or notes, or a condition on a setting "
           "(=, !=, <, <=, >, >=; numbers compare as numbers). A setting is named as History's compare table names it, "
           "or by its last part: slowdown matches party2.workers[0].slowdown"));
    m_filter->setClearButtonEnabled(true);
    auto* bar = new QHBoxLayout;
    m_reopen->setObjectName(QStringLiteral("reopen_topology"));
    m_delete->setObjectName(QStringLiteral("delete_runs"));
    m_reopen->setToolTip(tr("Open the selected run's topology and settings in the designer, to run it again"));
    m_attach->setObjectName(QStringLiteral("reattach_run"));
    m_attach->setToolTip(
        tr("Take up the selected run, still going on its agents after its controller went away "
           "(as hips attach does)"));
    m_resume->setObjectName(QStringLiteral("resume_run"));
    m_resume->setToolTip(
        tr("Go on with the selected run, which stopped, failed or was interrupted, from its last "
           "checkpoint (as hips run --resume does); a finished run, with more rounds"));
    m_open->setObjectName(QStringLiteral("show_in_charts"));
    m_open->setToolTip(
        tr("Show the selected run in the charts; with several selected, the first, and the others over it, dashed, on every chart"));
    m_folder->setObjectName(QStringLiteral("open_run_folder"));
    m_folder->setToolTip(tr("Open the selected run's directory: its logs (every role's), model, checkpoints and metrics"));
    for (QPushButton* b : {m_open, m_reopen, m_resume, m_attach, m_export, m_folder, m_delete, refreshButton}) bar->addWidget(b);
    bar->addSpacing(12);
    bar->addWidget(m_filter, 1);
    m_groupBy->setObjectName(QStringLiteral("group_by"));
    m_groupBy->setText(tr("Group by"));
    m_groupBy->setToolTip(tr("Group the runs by a setting: a column of its values, the list sorted by them"));
    m_groupBy->setPopupMode(QToolButton::InstantPopup);
    auto* groupMenu = new QMenu(m_groupBy);
    m_groupBy->setMenu(groupMenu);
    connect(groupMenu, &QMenu::aboutToShow, this, [this, groupMenu] { fillGroupMenu(groupMenu); });
    bar->addWidget(m_groupBy);
    m_metric->setObjectName(QStringLiteral("compare_metric"));
    m_metric->addItems({tr("Test accuracy (or RMSE)"), tr("Training loss"), tr("MB across parties"), tr("Samples/s")});
    m_metric->setToolTip(tr("What the chart compares for the selected runs"));
    // The overlay's own controls, above it in its tab: the toolbar above has no room left.
    auto* xAxis = new QComboBox;
    xAxis->setObjectName(QStringLiteral("compare_x_axis"));
    xAxis->addItems({tr("Round"), tr("Wall-clock time"), tr("Time since start")});
    connect(xAxis, &QComboBox::currentIndexChanged, m_overlay, [this](int i) { m_overlay->setXAxis(LiveChart::XAxis(i)); });
    auto* overlayTab = new QWidget;
    auto* overlayControls = new QHBoxLayout;
    overlayControls->addWidget(new QLabel(tr("Compare:")));
    overlayControls->addWidget(m_metric);
    overlayControls->addSpacing(12);
    overlayControls->addWidget(new QLabel(tr("X axis:")));
    overlayControls->addWidget(xAxis);
    overlayControls->addStretch();
    auto* overlayLayout = new QVBoxLayout(overlayTab);
    overlayLayout->setContentsMargins(4, 4, 4, 0);
    overlayLayout->addLayout(overlayControls);
    overlayLayout->addWidget(m_overlay, 1);
    m_diff->setObjectName(QStringLiteral("settings_diff"));
    m_diff->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_diff->verticalHeader()->hide();
    m_diff->setToolTip(tr("The settings that differ between the selected runs"));
    m_compareTabs->setObjectName(QStringLiteral("compare_tabs"));
    m_compareTabs->addTab(overlayTab, tr("Selected runs"));
    m_compareTabs->addTab(m_parallel, tr("Settings against score"));
    m_compareTabs->setTabToolTip(
        1, tr("Every run listed: an axis per setting that differs, the final score last; click a line to select its run"));
    connect(m_compareTabs, &QTabWidget::currentChanged, this, &HistoryPanel::updateParallel);
    connect(m_parallel, &ParallelCoordinates::runClicked, this, [this](qint64 id) {
        selectRuns({id});
        for (int row = 0; row < m_table->rowCount(); ++row)
            if (m_table->item(row, 0)->data(Qt::UserRole).toLongLong() == id) m_table->scrollToItem(m_table->item(row, 0));
    });
    auto* compare = new QSplitter(Qt::Horizontal);
    compare->addWidget(m_compareTabs);
    compare->addWidget(m_diff);
    compare->setSizes({700, 300});
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_table);
    split->addWidget(compare);
    split->setSizes({300, 420});
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    connect(refreshButton, &QPushButton::clicked, this, &HistoryPanel::refresh);
    connect(m_filter, &QLineEdit::textChanged, this, &HistoryPanel::applyFilter);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &HistoryPanel::updateOverlay);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &HistoryPanel::updateOverlay);
    connect(m_table, &QTableWidget::itemDoubleClicked, this, [this](QTableWidgetItem* item) {
        if (!(item->flags() & Qt::ItemIsEditable) && !selectedRuns().isEmpty()) Q_EMIT openRequested(selectedRuns().first(), {});
    });
    connect(m_table, &QTableWidget::itemChanged, this, &HistoryPanel::labelEdited);
    connect(m_open, &QPushButton::clicked, this, [this] {
        const QList<qint64> ids = selectedRuns();
        if (!ids.isEmpty()) Q_EMIT openRequested(ids.first(), ids.mid(1));
    });
    connect(m_delete, &QPushButton::clicked, this, &HistoryPanel::deleteSelected);
    connect(m_folder, &QPushButton::clicked, this, [this] {
        if (selectedRuns().size() != 1 || !m_store) return;
        const QString dir = m_store->runDirectory(selectedRuns().first());
        if (!QFileInfo(dir).isDir()) {
            Q_EMIT message(tr("Run %1's directory %2 is gone").arg(selectedRuns().first()).arg(dir));
            return;
        }
        if (!QDesktopServices::openUrl(QUrl::fromLocalFile(dir))) Q_EMIT message(tr("No file manager opened %1").arg(dir));
    });
    connect(m_reopen, &QPushButton::clicked, this, [this] {
        if (selectedRuns().size() == 1) Q_EMIT topologyRequested(selectedRuns().first());
    });
    connect(m_attach, &QPushButton::clicked, this, [this] {
        if (selectedRuns().size() == 1) Q_EMIT attachRequested(selectedRuns().first());
    });
    connect(m_resume, &QPushButton::clicked, this, [this] {
        if (selectedRuns().size() == 1) Q_EMIT resumeRequested(selectedRuns().first());
    });
    connect(m_export, &QPushButton::clicked, this, &HistoryPanel::exportSelected);
    updateOverlay();
}

void HistoryPanel::setStore(RunStore* store) {
    m_store = store;
    refresh();
}

void HistoryPanel::refresh() {
    const QList<qint64> selected = selectedRuns();
    qint64 newestShown = 0;
    for (int row = 0; row < m_table->rowCount(); ++row)
        newestShown = std::max(newestShown, m_table->item(row, 0)->data(Qt::UserRole).toLongLong());
    m_table->setSortingEnabled(false);
    m_table->setRowCount(0);
    if (!m_store) return;
    m_filling = true;  // filling the table is no edit
    m_settingsOf.clear();  // (a resumed run may have new settings)
    m_roundsOf.clear();
    m_scores.clear();
    m_store->clearReadError();
    const QList<RunListEntry> runs = m_store->runList();
    // (An empty list is no answer to a file that cannot be read: it is said.)
    if (const QString e = m_store->readError(); !e.isEmpty()) Q_EMIT message(tr("The history could not be read: %1").arg(e));
    m_table->setRowCount(int(runs.size()));
    for (int i = 0; i < runs.size(); ++i) {
        const auto& [r, f] = runs[i];
        const double duration = m_store->duration(r);
        m_table->setItem(i, 0, numberItem(double(r.id), QString::number(r.id)));
        m_table->setItem(i, 1, new QTableWidgetItem(r.name));
        m_table->setItem(
            i, 2,
            new QTableWidgetItem(r.started > 0 ? QDateTime::fromMSecsSinceEpoch(qint64(r.started * 1000)).toString("yyyy-MM-dd HH:mm:ss")
                                               : QStringLiteral("-")));  // (not known: RunStoreReads)
        m_table->setItem(i, 3, numberItem(duration, formatSeconds(duration)));
        auto* status = new QTableWidgetItem(statusText(r.status));
        status->setData(Qt::UserRole, r.status);  // the stored name, which the filter matches too
        m_table->setItem(i, 4, status);
        // (a regression's RMSE sorts below every accuracy: lower is better, and it reads "RMSE …")
        m_table->setItem(i, 5, numberItem(f.regression() ? -1 - f.bestRmse : f.bestAccuracy, f.bestText()));
        m_table->setItem(i, 6, numberItem(f.regression() ? -1 - f.finalRmse : f.finalAccuracy, f.finalText()));
        m_table->setItem(i, 7, numberItem(f.rounds, QString::number(f.rounds)));
        m_table->setItem(i, 8, numberItem(f.bytesAcross, QString::number(f.bytesAcross / 1e6, 'f', 1)));
        auto* reason = new QTableWidgetItem(runReason(r));
        reason->setToolTip(literalToolTip(reason->text()));
        m_table->setItem(i, 9, reason);
        m_table->setItem(i, 10, new QTableWidgetItem(r.tags));
        m_table->setItem(i, 11, new QTableWidgetItem(r.notes));
        m_scores.insert(r.id, Score{f.regression() ? f.finalRmse : f.finalAccuracy, f.regression()});
        for (int column = 0; column < kGroupColumn; ++column)  // (the group column's items come with grouping)
            if (!kLabelColumns.contains(column))
                m_table->item(i, column)->setFlags(m_table->item(i, column)->flags() & ~Qt::ItemIsEditable);
    }
    m_table->setSortingEnabled(true);
    m_table->sortItems(0, Qt::DescendingOrder);  // newest first
    m_filling = false;
    if (!m_groupKey.isEmpty()) setGroupKey(m_groupKey);  // (and the filter)
    else applyFilter();
    // Keep the selection; with none, or with only the newest run when a newer one came (the run
    // just finished), select the newest run so that its curve shows at once.
    const bool followNewest = selected.isEmpty() || (selected == QList<qint64>{newestShown});
    selectRuns(followNewest && !runs.isEmpty() ? QList<qint64>{runs.last().run.id} : selected);
}

// A name, tags or notes cell the user edited: stored at once.
void HistoryPanel::labelEdited(QTableWidgetItem* item) {
    if (m_filling || !m_store || !kLabelColumns.contains(item->column())) return;
    const int row = item->row();
    const qint64 run = m_table->item(row, 0)->data(Qt::UserRole).toLongLong();
    m_store->setRunLabels(run, m_table->item(row, 1)->text(), m_table->item(row, 10)->text(), m_table->item(row, 11)->text());
    waitForWrites();
}

// An edit waits a few seconds for its commit, not a click's lifetime: a history another program
// holds locked keeps it queued, and the user is told it goes in once the file is free.
bool HistoryPanel::waitForWrites() {
    if (m_store->flushWithin(5)) return true;
    const QString error = m_store->writeError();
    Q_EMIT message(!error.isEmpty() ? error
                                    : tr("The history is busy (another program is writing to it); the change is stored as "
                                         "soon as it is free"));
    return false;
}

// A stored status in the interface's language (the history and `hips history` keep the English).
QString HistoryPanel::statusText(const QString& status) {
    if (status == QLatin1String("running")) return tr("running");
    if (status == QLatin1String("finished")) return tr("finished");
    if (status == QLatin1String("stopped")) return tr("stopped");
    if (status == QLatin1String("failed")) return tr("failed");
    if (status == QLatin1String("interrupted")) return tr("interrupted");
    return status;
}

// Rows whose id, name, status, reason, tags or notes do not contain the filter text are hidden.
void HistoryPanel::applyFilter() {
    const QStringList terms = m_filter->text().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (int row = 0; row < m_table->rowCount(); ++row) m_table->setRowHidden(row, !rowMatches(row, terms));
    updateParallel();
}

QList<qint64> HistoryPanel::selectedRuns() const {
    QList<qint64> ids;
    for (const QModelIndex& row : m_table->selectionModel()->selectedRows())
        ids << m_table->item(row.row(), 0)->data(Qt::UserRole).toLongLong();
    return ids;
}

void HistoryPanel::selectRuns(const QList<qint64>& ids) {
    m_table->clearSelection();
    for (int i = 0; i < m_table->rowCount(); ++i)
        if (ids.contains(m_table->item(i, 0)->data(Qt::UserRole).toLongLong()))
            m_table->selectionModel()->select(m_table->model()->index(i, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

std::optional<RunReport> HistoryPanel::load(qint64 run, QString* error) const {
    if (!m_store) {
        *error = tr("no history is open");
        return std::nullopt;
    }
    return RunReport::load(*m_store, run, 0.85, error);
}

void HistoryPanel::updateOverlay() {
    const QList<qint64> ids = selectedRuns();
    m_open->setEnabled(!ids.isEmpty());
    m_export->setEnabled(ids.size() == 1);
    m_reopen->setEnabled(ids.size() == 1);
    // Only a run whose controller went away can be taken up (its agents may have stopped it since).
    const auto single = ids.size() == 1 && m_store ? m_store->run(ids.first()) : std::nullopt;
    m_attach->setEnabled(single && (single->status == QLatin1String("interrupted") ||
                                    (single->status == QLatin1String("running") && !m_store->liveController(single->id))));
    m_resume->setEnabled(single && (single->status == QLatin1String("stopped") || single->status == QLatin1String("failed") ||
                                    single->status == QLatin1String("interrupted") || single->status == QLatin1String("finished")));
    // Not a run under way: its controller would fail its next record, and every later write.
    m_delete->setEnabled(!ids.isEmpty() && m_store &&
                         std::none_of(ids.begin(), ids.end(), [this](qint64 id) { return bool(m_store->liveController(id)); }));
    m_delete->setToolTip(m_delete->isEnabled() || ids.isEmpty() ? QString() : tr("A run under way cannot be deleted: stop it first"));
    m_parallel->setSelected(ids);
    m_folder->setEnabled(single && QFileInfo(m_store->runDirectory(single->id)).isDir());
    m_overlay->clear();
    m_overlay->chart()->setTitle(tr("%1 of the selected runs").arg(m_metric->currentText()));
    m_overlay->setYTitle(m_metric->currentText().toLower());
    if (!m_store) return;
    for (int i = 0; i < ids.size(); ++i) {
        const auto run = m_store->run(ids[i]);
        if (!run) continue;
        const int line = m_overlay->addLine(QStringLiteral("#%1 %2").arg(ids[i]).arg(run->name), runColor(i));
        const std::optional<StoredRounds> rounds = roundsOf(*run);
        if (!rounds) continue;
        for (qsizetype r = 0; r < rounds->rows.size(); ++r) {
            const RoundRow& row = rounds->rows[r];
            const double value = m_metric->currentIndex() == 0   ? row.testScore()
                                 : m_metric->currentIndex() == 1 ? (row.trainReports > 0 ? row.trainLoss : std::nan(""))
                                 : m_metric->currentIndex() == 2 ? double(row.bytesAcross) / 1e6
                                                                 : row.samplesPerSecond;
            if (!std::isnan(value)) m_overlay->append(line, row.round, rounds->wallMs[r], row.elapsed, value);
        }
    }
    showSettingsDiff(ids);
}

std::optional<StoredRounds> HistoryPanel::roundsOf(const RunRecord& run) {
    if (const auto kept = m_roundsOf.constFind(run.id); kept != m_roundsOf.cend()) return *kept;
    QString error;
    const auto report = RunReport::load(*m_store, run.id, 0.85, &error);
    if (!report) return std::nullopt;
    if (run.status != QLatin1String("running")) m_roundsOf.insert(run.id, report->rounds);  // (one under way has more to come)
    return report->rounds;
}

// The topology's shape (parties, hosts, …, from the run's stored topology) and training settings
// that differ between the selected runs (all of them for a single run), the shape first.
void HistoryPanel::showSettingsDiff(const QList<qint64>& ids) {
    m_diff->clear();
    m_diff->setRowCount(0);
    m_diff->setColumnCount(int(ids.size()) + 1);
    QStringList headers{tr("Setting")};
    QList<QJsonObject> settings;
    QStringList keys, shapeKeys;
    for (qint64 id : ids) {
        headers << QStringLiteral("#%1").arg(id);
        settings << (m_store ? runSettings(*m_store, id, &shapeKeys) : QJsonObject());
        for (const QString& k : settings.last().keys())
            if (!keys.contains(k) && !shapeKeys.contains(k)) keys << k;
    }
    m_diff->setHorizontalHeaderLabels(headers);
    keys.sort();
    keys = shapeKeys + keys;
    for (const QString& key : keys) {
        QStringList values;
        for (const QJsonObject& s : settings) values << settingText(s.value(key));
        if (ids.size() > 1 && values.count(values.first()) == values.size()) continue;  // the same everywhere
        const int row = m_diff->rowCount();
        m_diff->insertRow(row);
        m_diff->setItem(row, 0, new QTableWidgetItem(key));
        for (int c = 0; c < values.size(); ++c) m_diff->setItem(row, c + 1, new QTableWidgetItem(values[c]));
    }
    if (ids.size() > 1 && m_diff->rowCount() == 0) {  // an empty table read as "nothing to compare"
        m_diff->insertRow(0);
        m_diff->setItem(0, 0, new QTableWidgetItem(tr("every setting")));
        for (int c = 1; c <= int(ids.size()); ++c) m_diff->setItem(0, c, new QTableWidgetItem(tr("the same")));
    }
    m_diff->resizeColumnsToContents();
}

namespace {

// A run's directory that Delete may take with the run: this user's own folder (not a link) that
// still holds a run (its topology.json, metrics.jsonl and logs folder, as every run writes them),
// so a path the history kept (a history file may come from anyone) never takes anything else.
bool isOwnRunDirectory(const QString& path) {
    const QFileInfo dir(path);
    const QDir run(path);
    return !path.isEmpty() && dir.isDir() && !dir.isSymLink() && dir.ownerId() == ::geteuid() &&
           QFileInfo(run.filePath(QStringLiteral("topology.json"))).isFile() &&
           QFileInfo(run.filePath(QStringLiteral("metrics.jsonl"))).isFile() && QFileInfo(run.filePath(QStringLiteral("logs"))).isDir();
}

}  // namespace

// Delete names the runs it deletes, and offers to take their run directories (models, logs,
// checkpoints) too.
void HistoryPanel::deleteSelected() {
    const QList<qint64> ids = selectedRuns();
    if (ids.isEmpty() || !m_store) return;
    QStringList names, dirs;
    for (qint64 id : ids) {
        const auto run = m_store->run(id);
        names << tr("run %1 (%2)").arg(id).arg(run ? run->name : QString());
        if (const QString dir = m_store->runDirectory(id); isOwnRunDirectory(dir)) dirs << dir;
    }
    QMessageBox box(QMessageBox::Question, tr("Delete runs"),
                    tr("Delete %1 and all their rows from the history?").arg(names.join(QStringLiteral(", "))),
                    QMessageBox::Yes | QMessageBox::No, this);
    box.setObjectName(QStringLiteral("delete_runs"));
    box.setTextFormat(Qt::PlainText);  // (names come from the history file: no markup of theirs is drawn)
    auto* withDirs =
        dirs.isEmpty()
            ? nullptr
            : new QCheckBox(tr("Also delete their run directories (%n folder(s): model, logs, checkpoints)", nullptr, int(dirs.size())));
    if (withDirs) {
        withDirs->setToolTip(literalToolTip(dirs.join('\n')));
        box.setInformativeText(
            tr("%n run directory(s):\n%1", nullptr, int(dirs.size())).arg(dirs.join('\n')));  // what the box would take, in view
        box.setCheckBox(withDirs);
    }
    if (box.exec() != QMessageBox::Yes) return;
    if (std::any_of(ids.begin(), ids.end(), [this](qint64 id) { return bool(m_store->liveController(id)); }))
        return (void)QMessageBox::warning(this, tr("Delete runs"), tr("A run under way cannot be deleted: stop it first"));
    const bool removeDirs = withDirs && withDirs->isChecked();
    for (qint64 id : ids) m_store->deleteRun(id);
    if (!waitForWrites()) return;  // (the folders stay when the rows could not be deleted)
    QStringList kept;
    for (const QString& dir : removeDirs ? dirs : QStringList())
        if (!QDir(dir).removeRecursively()) kept << dir;
    refresh();
    if (!kept.isEmpty())
        QMessageBox::warning(this, tr("Delete runs"), tr("These run directories could not be deleted:\n%1").arg(kept.join('\n')));
    Q_EMIT message(removeDirs ? tr("Deleted %n run(s) and their run directories", nullptr, int(ids.size()))
                              : tr("Deleted %n run(s)", nullptr, int(ids.size())));
}

bool HistoryPanel::exportReport(qint64 run, const QString& path, QString* error) {
    if (m_store) m_store->clearReadError();
    const auto report = load(run, error);
    if (report && m_store && !m_store->readError().isEmpty())  // (a report of what a failed read left out is no report)
        *error = m_store->readError() + tr("; nothing written");
    if (!report || !error->isEmpty()) return false;
    *error = writeReport(*report, path);
    return error->isEmpty();
}

void HistoryPanel::exportSelected() {
    const QList<qint64> ids = selectedRuns();
    if (ids.size() != 1 || !m_store) return;
    const auto run = m_store->run(ids.first());
    const QString path = askExportPath(this, tr("Export report"), reportFileName(ids.first(), run ? run->name : QString()),
                                       tr("Reports (*.pdf *.html *.csv *.json)"), QStringLiteral("pdf"));
    if (path.isEmpty()) return;
    QString error;
    if (exportReport(ids.first(), path, &error)) Q_EMIT message(tr("Wrote %1").arg(path));
    else QMessageBox::warning(this, tr("Export report"), error);
}

}  // namespace hips
