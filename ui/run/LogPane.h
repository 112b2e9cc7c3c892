#pragma once
// Every log line of a run (role stdout as info, stderr as warnings, the controller's errors),
// filtered by process, level and text. Keeps the newest 100,000 lines.
#include <QWidget>

class QComboBox;
class QLineEdit;
class QTableView;

namespace hips {

class LogModel;
class LogFilter;

class LogPane : public QWidget {
    Q_OBJECT
public:
    explicit LogPane(QWidget* parent = nullptr);

    void clear(const QStringList& nodes);
    void append(const QString& source, const QString& level, const QString& text);
    void showOnly(const QString& node);  // "" for all processes
    int visibleLines() const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    LogModel* m_model;
    LogFilter* m_filter;
    QComboBox* m_process;
    QComboBox* m_level;
    QLineEdit* m_search;
    QTableView* m_view;
    // Whether the view follows the newest line: until the user scrolls up, and again once back at
    // the bottom. Kept apart from the scroll bar, whose range a hidden view (another tab) does not
    // update: judged from it, lines that came while the Run tab was hidden stopped the following.
    bool m_follow = true;
};

}  // namespace hips
