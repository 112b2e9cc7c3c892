// HistoryPanel's settings of the runs: the filter's conditions on them, grouping by one, and the
// parallel coordinates of every listed run's settings against its final score.
#include "HistoryPanel.h"
#include "ParallelCoordinates.h"
#include "RunSettings.h"
#include "RunStore.h"

#include <QMenu>
#include <QSet>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>

namespace hips {

const QJsonObject& HistoryPanel::settingsOf(qint64 run) {
    auto it = m_settingsOf.find(run);
    if (it == m_settingsOf.end()) it = m_settingsOf.insert(run, m_store ? runSettings(*m_store, run) : QJsonObject());
    return *it;
}

// Every term must hold: a condition on a setting ("mode=esync"), or text that some column has.
bool HistoryPanel::rowMatches(int row, const QStringList& terms) {
    const qint64 run = m_table->item(row, 0)->data(Qt::UserRole).toLongLong();
    for (const QString& term : terms) {
        if (const auto condition = parseSettingCondition(term)) {
            if (!condition->matches(settingsOf(run))) return false;
            continue;
        }
        bool found = false;
        for (int column : {0, 1, 4, 9, 10, 11, kGroupColumn})
            if (const QTableWidgetItem* item = m_table->item(row, column))
                found = found || item->text().contains(term, Qt::CaseInsensitive) ||
                        (column == 4 && item->data(Qt::UserRole).toString().contains(term, Qt::CaseInsensitive));
        if (!found) return false;
    }
    return true;
}

// The settings whose values differ between the runs listed, each a choice; "no grouping" first.
void HistoryPanel::fillGroupMenu(QMenu* menu) {
    menu->clear();
    menu->addAction(tr("No grouping"), this, [this] { setGroupKey({}); });
    menu->addSeparator();
    QMap<QString, QSet<QString>> values;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QJsonObject& s = settingsOf(m_table->item(row, 0)->data(Qt::UserRole).toLongLong());
        for (auto it = s.begin(); it != s.end(); ++it) values[it.key()].insert(settingText(it.value()));
    }
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        if (it->size() > 1) {
            QAction* a = menu->addAction(it.key(), this, [this, key = it.key()] { setGroupKey(key); });
            a->setCheckable(true);
            a->setChecked(it.key() == m_groupKey);
        }
    if (menu->actions().size() == 2) menu->addAction(tr("(every run listed has the same settings)"))->setEnabled(false);
}

void HistoryPanel::setGroupKey(const QString& key) {
    m_groupKey = key;
    m_groupBy->setText(key.isEmpty() ? tr("Group by") : tr("Group by: %1").arg(key));
    m_table->setColumnHidden(kGroupColumn, key.isEmpty());
    m_table->setHorizontalHeaderItem(kGroupColumn, new QTableWidgetItem(key));
    m_filling = true;
    const bool sorting = m_table->isSortingEnabled();
    m_table->setSortingEnabled(false);  // (a set item would move under the loop)
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const qint64 run = m_table->item(row, 0)->data(Qt::UserRole).toLongLong();
        auto* item = new QTableWidgetItem(key.isEmpty() ? QString() : settingText(settingsOf(run).value(key)));
        item->setFlags(item->flags() & ~Qt::ItemIsEditable);
        m_table->setItem(row, kGroupColumn, item);
    }
    m_table->setSortingEnabled(sorting);
    if (!key.isEmpty()) m_table->sortItems(kGroupColumn, Qt::AscendingOrder);  // a group's runs together
    m_filling = false;
    applyFilter();
}

// Every run the filter leaves listed, by the settings that differ between them and its final
// score; drawn only while its tab is shown (it reads every listed run's topology).
void HistoryPanel::updateParallel() {
    if (m_compareTabs->currentWidget() != m_parallel) return;
    QList<ParallelCoordinates::Run> runs;
    QList<Score> scores;
    int regressions = 0;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        if (m_table->isRowHidden(row)) continue;
        const qint64 id = m_table->item(row, 0)->data(Qt::UserRole).toLongLong();
        scores << m_scores.value(id, Score{qQNaN(), false});
        regressions += scores.last().rmse;
        runs << ParallelCoordinates::Run{id, m_table->item(row, 1)->text(), settingsOf(id), scores.last().value};
    }
    // One score axis: the listed runs' most common score (an RMSE and an accuracy are not one
    // scale); the others' lines grey, as a run never evaluated (its score below 0) is.
    const bool rmse = 2 * regressions > runs.size();
    for (qsizetype i = 0; i < runs.size(); ++i)
        if (scores[i].rmse != rmse || !(scores[i].value >= 0)) runs[i].score = qQNaN();
    m_parallel->setRuns(runs, rmse ? tr("final RMSE") : tr("final accuracy"), rmse);
    m_parallel->setSelected(selectedRuns());
}

}  // namespace hips
