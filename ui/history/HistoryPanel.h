#pragma once
// The run history: every run with its facts and, when it did not finish, why; newest first, with
// a filter; select several to compare a metric's curves and the settings that differ; open one
// into the charts; delete;
// export a report (the code `hips report` uses).
#include "RunProgress.h"
#include "RunReport.h"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QTableWidget;
class QTableWidgetItem;
class QPushButton;

namespace hips {

class LiveChart;

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

Q_SIGNALS:
    void openRequested(qint64 run);  // show this run in the charts
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
    void deleteSelected();
    bool waitForWrites();

    RunStore* m_store = nullptr;
    QTableWidget* m_table;
    LiveChart* m_overlay;
    QPushButton *m_open, *m_delete, *m_export, *m_reopen, *m_attach, *m_resume, *m_folder;
    QLineEdit* m_filter;
    QComboBox* m_metric;  // what the overlay compares
    QTableWidget* m_diff;  // the settings that differ between the selected runs
    bool m_filling = false;
};

}  // namespace hips
