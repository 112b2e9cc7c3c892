#pragma once
// The run history: every run with its facts and, when it did not finish, why; newest first, with
// a filter (text, or conditions on any setting: "mode=esync lr<0.1") and grouping by any setting;
// select several to compare a metric's curves and the settings that differ, or see every listed
// run's settings against its score (parallel coordinates); open one into the charts (the others
// selected over it); delete; export a report (the code `hips report` uses).
#include "RunProgress.h"
#include "RunReport.h"

#include <QHash>
#include <QJsonObject>
#include <QWidget>

class QComboBox;
class QMenu;
class QTabWidget;
class QToolButton;
class QLineEdit;
class QTableWidget;
class QTableWidgetItem;
class QPushButton;

namespace hips {

class LiveChart;
class ParallelCoordinates;

class HistoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit HistoryPanel(QWidget* parent = nullptr);

    void setStore(RunStore* store);
    void refresh();
    QList<qint64> selectedRuns() const;
    void selectRuns(const QList<qint64>& ids);
    bool exportReport(qint64 run, const QString& path, QString* error);
    // Asks where to save the selected run's report (one run must be selected) and writes it.
    void exportSelected();
    std::optional<RunReport> load(qint64 run, QString* error) const;

    QTableWidget* table() const { return m_table; }
    LiveChart* overlay() const { return m_overlay; }
    QLineEdit* filter() const { return m_filter; }
    QComboBox* compareMetric() const { return m_metric; }
    QTableWidget* settingsDiff() const { return m_diff; }
    ParallelCoordinates* parallel() const { return m_parallel; }
    QTabWidget* compareTabs() const { return m_compareTabs; }
    // Groups the list by a setting: a column of its values, sorted by them; empty: no grouping.
    void setGroupKey(const QString& key);
    QString groupKey() const { return m_groupKey; }
    static constexpr int kGroupColumn = 12;

Q_SIGNALS:
    // Show `run` in the charts, with the runs `compared` over it (the other selected runs).
    void openRequested(qint64 run, const QList<qint64>& compared);
    void topologyRequested(qint64 run);  // open this run's topology in the designer
    void attachRequested(qint64 run);  // take this run up from its agents (its controller went away)
    void resumeRequested(qint64 run);  // go on with this run from its checkpoint
    void message(const QString& text);

private:
    static QString statusText(const QString& status);
    void updateOverlay();
    void applyFilter();
    void labelEdited(QTableWidgetItem* item);
    void showSettingsDiff(const QList<qint64>& ids);
    std::optional<StoredRounds> roundsOf(const RunRecord& run);  // read once (m_roundsOf)
    void deleteSelected();
    bool waitForWrites();
    // (HistoryPanelSettings.cpp) The runs' settings, read once per refresh; the filter's
    // conditions, the grouping and the parallel coordinates read them.
    const QJsonObject& settingsOf(qint64 run);
    bool rowMatches(int row, const QStringList& terms);
    void fillGroupMenu(QMenu* menu);
    void updateParallel();

    RunStore* m_store = nullptr;
    QTableWidget* m_table;
    LiveChart* m_overlay;
    QPushButton *m_open, *m_delete, *m_export, *m_reopen, *m_attach, *m_resume, *m_folder;
    QLineEdit* m_filter;
    QComboBox* m_metric;  // what the overlay compares
    QTableWidget* m_diff;  // the settings that differ between the selected runs
    bool m_filling = false;
    QHash<qint64, QJsonObject> m_settingsOf;
    // Each selected run's rounds, read once: every change of the selection draws them all again
    // (a run under way is read each time; refresh reads every run again).
    QHash<qint64, StoredRounds> m_roundsOf;
    struct Score {
        double value;
        bool rmse;  // a regression's (lower is better)
    };
    QHash<qint64, Score> m_scores;  // each run's final score
    QToolButton* m_groupBy;
    QString m_groupKey;
    QTabWidget* m_compareTabs;
    ParallelCoordinates* m_parallel;
};

}  // namespace hips
